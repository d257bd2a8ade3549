import Foundation
import Testing

@testable import FirestoreFeed

#if canImport(Glibc)
    import Glibc
#endif

/// A process spawned while a feed holds a checkpoint key shares the lock file's open file description until its
/// `exec` closes its copy (`O_CLOEXEC`); `flock` locks belong to the description. Releasing the key must free it
/// even while such a copy is open, or the next feed on the key is refused ("in use by another feed") for as long as
/// the child takes to reach `exec` (a fresh-clone run failed once so, in `FeedServiceLiveTests`, whose process
/// spawns CLI processes in parallel tests). The copy here is a `dup` of the holder's descriptor: what the child's
/// descriptor table holds. No network.
@Suite(.timeLimit(.minutes(1))) struct CheckpointKeyLockInheritanceTests {
    /// The descriptors of this process open on `path` (`/proc/self/fd`).
    static func descriptors(on path: String) throws -> [Int32] {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").compactMap { name in
            guard (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) == path else {
                return nil
            }
            return Int32(name)
        }
    }

    @Test func aReleasedKeyIsFreeWhileACopyOfItsDescriptorIsStillOpen() throws {
        let store = NSTemporaryDirectory() + "checkpoint-lock-inherit-\(UUID().uuidString).sqlite"
        let lockPath = CheckpointKeyLock.path(storePath: store, key: "k")
        defer { unlink(lockPath) }
        let held = try CheckpointKeyLock(storePath: store, key: "k")
        let holders = try Self.descriptors(on: lockPath)
        #expect(holders.count == 1)
        let inherited = try #require(holders.first.map { dup($0) })
        #expect(inherited >= 0)
        defer { close(inherited) }

        // Held: a second taker is refused.
        #expect(throws: FirestoreError.self) { try CheckpointKeyLock(storePath: store, key: "k") }
        held.release()
        // Released, with the copy still open: the key is free.
        let again = try CheckpointKeyLock(storePath: store, key: "k")
        again.release()
    }
}
