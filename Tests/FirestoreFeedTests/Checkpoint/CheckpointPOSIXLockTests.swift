import FirestoreFeed
import FirestoreREST
import Foundation
import Testing

/// Opening a store never closes a descriptor of its own on the store file: on Linux closing any descriptor of a
/// file drops every POSIX lock the process holds on it, those of another SQLite connection included
/// (https://www.sqlite.org/howtocorrupt.html, section 2.2). No network.
@Suite(.timeLimit(.minutes(2))) struct CheckpointPOSIXLockTests {
    /// The POSIX (`fcntl`) locks this process holds on the file at `path`: the `lock:` lines of
    /// `/proc/self/fdinfo/FD` for every descriptor open on it (each lists the locks taken through it, read in one
    /// piece). Not `/proc/locks`: it lists every lock of the machine, a page per `read`, and an entry can be skipped
    /// between two reads when other locks come and go meanwhile (a parallel run read 0 locks while the store's
    /// descriptor was open, then 1, then 0 again). Nothing here opens the store file: closing a descriptor of it
    /// would drop the very locks counted.
    static func posixLocks(on path: String) throws -> Int {
        let descriptors = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path
        }
        var locks: [String] = []
        for descriptor in descriptors {
            // A descriptor closed since the listing has no fdinfo any more, and no locks.
            guard let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(descriptor)", encoding: .utf8) else {
                continue
            }
            locks += info.split(separator: "\n").filter { $0.hasPrefix("lock:") && $0.contains(" POSIX ") }
                .map(String.init)
        }
        if locks.count != 1 { print("POSIX locks on \(path), descriptors \(descriptors): \(locks)") }
        return locks.count
    }

    /// In WAL mode an open connection holds a shared lock on the store file. Before issue 24 a second store opened
    /// on the file read its header with a descriptor of its own and closed it: the first connection's lock was gone
    /// (0 locks), and the second's was never taken.
    @Test func openingASecondStoreKeepsTheFirstConnectionsLock() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let first = try await FeedCheckpointStore(path: path)
        #expect(try await first.keys() == [])
        #expect(try Self.posixLocks(on: path) == 1)
        let second = try await FeedCheckpointStore(path: path)
        #expect(try Self.posixLocks(on: path) == 1)
        #expect(try await second.keys() == [])
        #expect(try await first.keys() == [])
        #expect(try Self.posixLocks(on: path) == 1)
    }
}
