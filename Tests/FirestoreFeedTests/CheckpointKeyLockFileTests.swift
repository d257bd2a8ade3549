import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The side file that holds a checkpoint key (`STORE-lock-<hash>`) has a predictable name: whatever is planted there
/// (a symbolic link, a hard link, a FIFO, a file larger than a lock file) is refused and left as it was, never
/// written through or emptied (issue 24: a `watch` run by root emptied a root-owned file through a link planted by
/// `nobody`). Each test plants in a folder of its own; `removeCheckpoint(key:)` and a feed take the lock.
@Suite(.timeLimit(.minutes(2))) struct CheckpointKeyLockFileTests {
    /// A folder of the test's own with a store in it, and a file `victim` holding `precious\n`.
    static func setUp() async throws -> (folder: String, store: FeedCheckpointStore, victim: String) {
        let folder = NSTemporaryDirectory() + "checkpoint-lock-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let victim = folder + "/victim"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        return (folder, try await FeedCheckpointStore(path: folder + "/store.sqlite"), victim)
    }

    static func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The error taking the lock of key `k` gives: through `removeCheckpoint(key:)`, and through a feed, which ends
    /// with the same error.
    static func lockError(_ store: FeedCheckpointStore) async throws -> FirestoreError? {
        var removal: FirestoreError?
        do {
            try await store.removeCheckpoint(key: "k")
        } catch {
            removal = error
        }
        let query = try FeedCheckpointStoreTests.seeded(1).firestore().collection("items").query
        let feed = GatedConsumer {
            PollerPool(clock: ManualClock()).snapshots(of: query, mode: .keys, checkpoint: store, key: "k", onEvent: $0)
        }
        #expect(await feed.waitForEnd())
        #expect(feed.count == 0)
        #expect(feed.failure.withLock { $0 } == removal)
        return removal
    }

    static func refusal(_ store: FeedCheckpointStore, _ reason: String) -> FirestoreError {
        FirestoreError(
            code: .permissionDenied,
            message: "checkpoint store \(store.path): cannot use the lock file \(store.lockPath(key: "k")) of key "
                + "\"k\": \(reason); refusing to write through it")
    }

    /// Before issue 24 the lock was taken through the link and the victim emptied, then given the process ID.
    @Test func aSymbolicLinkAtTheLockPathIsRefusedAndItsTargetKeepsItsBytes() async throws {
        let (folder, store, victim) = try await Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(symlink(victim, store.lockPath(key: "k")) == 0)
        #expect(try await Self.lockError(store) == Self.refusal(store, "it is a symbolic link"))
        #expect(Self.contents(victim) == "precious\n")
    }

    /// Before issue 24 the lock file was created at the link's target.
    @Test func aDanglingLinkAtTheLockPathCreatesNothing() async throws {
        let (folder, store, _) = try await Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let target = folder + "/created-through-the-link"
        #expect(symlink(target, store.lockPath(key: "k")) == 0)
        #expect(try await Self.lockError(store) == Self.refusal(store, "it is a symbolic link"))
        #expect(!FileManager.default.fileExists(atPath: target))
    }

    /// Before issue 24 the file the hard link shares was emptied.
    @Test func aHardLinkAtTheLockPathIsRefused() async throws {
        let (folder, store, victim) = try await Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(link(victim, store.lockPath(key: "k")) == 0)
        #expect(try await Self.lockError(store) == Self.refusal(store, "it has 2 hard links"))
        #expect(Self.contents(victim) == "precious\n")
    }

    /// Before issue 24 a FIFO was opened and "locked".
    @Test func aFIFOAtTheLockPathIsRefused() async throws {
        let (folder, store, _) = try await Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(store.lockPath(key: "k"), 0o600) == 0)
        #expect(try await Self.lockError(store) == Self.refusal(store, "it is not a regular file"))
    }

    /// A file larger than a lock file is not one: refused and kept (before issue 24 it was emptied).
    @Test func aLargerFileAtTheLockPathIsRefusedAndKept() async throws {
        let (folder, store, _) = try await Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let text = String(repeating: "notes\n", count: 20)
        try Data(text.utf8).write(to: URL(fileURLWithPath: store.lockPath(key: "k")))
        #expect(try await Self.lockError(store) == Self.refusal(store, "it holds 120 bytes, more than 64"))
        #expect(Self.contents(store.lockPath(key: "k")) == text)
    }

    /// A lock file is written in place, never truncated: a held lock names the holder in a 12-byte record, a
    /// released one holds spaces; the file of an earlier version (`PID\n`) is reused the same way.
    @Test func theLockFileHoldsAFixedRecordAndIsNeverTruncated() async throws {
        let (folder, store, _) = try await Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lock = store.lockPath(key: "k")
        try Data("4242\n".utf8).write(to: URL(fileURLWithPath: lock))
        let query = try FeedCheckpointStoreTests.seeded(1).firestore().collection("items").query
        let clock = ManualClock()
        let feed = GatedConsumer {
            PollerPool(clock: clock).snapshots(of: query, mode: .keys, checkpoint: store, key: "k", onEvent: $0)
        }
        #expect(await feed.waitFor(1, clock: clock))
        let pid = "\(getpid())"
        #expect(Self.contents(lock) == pid + String(repeating: " ", count: 11 - pid.count) + "\n")
        feed.leave()
        #expect(await store.waitUntilReleased("k"))
        #expect(Self.contents(lock) == String(repeating: " ", count: 11) + "\n")
        // The next holder takes the reused file; a new lock file is the user's alone.
        try await store.removeCheckpoint(key: "k")
        var info = stat()
        let fresh = store.lockPath(key: "fresh")
        try await store.removeCheckpoint(key: "fresh")
        #expect(stat(fresh, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)
    }
}
