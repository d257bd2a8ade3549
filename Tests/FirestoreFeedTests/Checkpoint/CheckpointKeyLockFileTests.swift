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

    /// What a test plants at the lock path, in a folder of its own holding `victim`.
    enum Plant: String, CaseIterable, Sendable {
        /// A link to `victim` (before issue 24 the victim was emptied, then given the process ID).
        case symbolicLink
        /// A link to a file that does not exist (before: the lock file was created there).
        case danglingLink
        /// A second name of `victim` (before: the victim was emptied).
        case hardLink
        /// A FIFO (before: it was opened and "locked").
        case fifo
        /// A file larger than a lock file (before: it was emptied).
        case largerFile

        /// Plants at `lock`; `true` when that worked.
        func plant(at lock: String, victim: String) -> Bool {
            switch self {
            case .symbolicLink: return symlink(victim, lock) == 0
            case .danglingLink: return symlink(victim + "-nowhere", lock) == 0
            case .hardLink: return link(victim, lock) == 0
            case .fifo: return mkfifo(lock, 0o600) == 0
            case .largerFile: return FileManager.default.createFile(atPath: lock, contents: Data(Self.notes.utf8))
            }
        }

        static let notes = String(repeating: "notes\n", count: 20)

        var reason: String {
            switch self {
            case .symbolicLink, .danglingLink: return "it is a symbolic link"
            case .hardLink: return "it has 2 hard links"
            case .fifo: return "it is not a regular file"
            case .largerFile: return "it holds 120 bytes, more than 64"
            }
        }
    }

    /// Whatever is planted is refused with `permission-denied` naming the lock file and why, by
    /// `removeCheckpoint(key:)` and by a feed alike, and is left as it was, and so is the file it leads to.
    @Test(arguments: Plant.allCases) func aPlantedLockPathIsRefusedAndLeftAsItWas(plant: Plant) async throws {
        let (folder, store, victim) = try await Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let lock = store.lockPath(key: "k")
        #expect(plant.plant(at: lock, victim: victim))
        #expect(try await Self.lockError(store) == Self.refusal(store, plant.reason))
        #expect(Self.contents(victim) == "precious\n")
        #expect(!FileManager.default.fileExists(atPath: victim + "-nowhere"))
        if plant == .largerFile { #expect(Self.contents(lock) == Plant.notes) }
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
