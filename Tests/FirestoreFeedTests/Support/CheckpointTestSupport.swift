import CSQLite
import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization

/// Files and consumers for the checkpoint tests.
enum CheckpointFiles {
    /// A fresh path in the temporary directory (nothing there yet).
    static func temporaryPath(_ name: String = "store") -> String {
        NSTemporaryDirectory() + "checkpoint-\(name)-\(UUID().uuidString).sqlite"
    }

    /// Removes the store at `path` and every side file beside it (WAL, shared memory, key locks).
    static func remove(_ path: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let base = (path as NSString).lastPathComponent
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where name.hasPrefix(base) {
            try? FileManager.default.removeItem(atPath: folder + "/" + name)
        }
    }

    /// Runs `sql` on the file at `path` with a connection of the test's own (SQLite's C API), after folding the
    /// WAL into the file, and returns the first column of the first row as text.
    @discardableResult
    static func sql(_ path: String, _ sql: String) -> String? {
        var handle: OpaquePointer?
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
            sqlite3_close_v2(handle)
            return nil
        }
        defer { sqlite3_close_v2(handle) }
        var statement: OpaquePointer?
        var result: String?
        for text in ["PRAGMA wal_checkpoint(TRUNCATE)", sql] {
            guard sqlite3_prepare_v2(handle, text, -1, &statement, nil) == SQLITE_OK else { return nil }
            if sqlite3_step(statement) == SQLITE_ROW, let value = sqlite3_column_text(statement, 0) {
                result = String(cString: value)
            }
            sqlite3_finalize(statement)
        }
        return result
    }
}

/// Reads a checkpointed feed one snapshot at a time: it asks for the next snapshot only when the test allows
/// (``allowNext()``), so a test decides when a snapshot counts as finished with.
final class GatedConsumer: Sendable {
    let received = Mutex<[QuerySnapshot]>([])
    let events = EventLog()
    let failure = Mutex<FirestoreError?>(nil)
    let ended = Mutex(false)
    private let permits: AsyncStream<Void>.Continuation
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// Starts reading `make`'s stream (given the consumer's event handler).
    init(_ make: (@escaping @Sendable (FeedEvent) -> Void) -> AsyncThrowingStream<QuerySnapshot, any Error>) {
        let (allowed, permits) = AsyncStream.makeStream(of: Void.self)
        self.permits = permits
        let events = self.events
        let stream = make { event in events.all.withLock { $0.append(event) } }
        task.withLock { task in
            task = Task { [self] in
                var permissions = allowed.makeAsyncIterator()
                do {
                    for try await snapshot in stream {
                        received.withLock { $0.append(snapshot) }
                        guard await permissions.next() != nil else { break }
                    }
                } catch {
                    failure.withLock {
                        $0 = error as? FirestoreError ?? FirestoreError(code: .unknown, message: "\(error)")
                    }
                }
                ended.withLock { $0 = true }
            }
        }
    }

    /// Lets the consumer ask for the next snapshot (which writes the one it holds to the checkpoint).
    func allowNext() { permits.yield(()) }

    /// Leaves the feed without asking for the next snapshot (the last one received is not finished with).
    func leave() {
        permits.finish()
        task.withLock { $0?.cancel() }
    }

    var count: Int { received.withLock { $0.count } }
    var last: QuerySnapshot? { received.withLock { $0.last } }

    /// Waits until `count` snapshots arrived (or the feed ended), advancing `clock` by a poll interval whenever
    /// the poller sleeps on it, so it polls again (generous: the whole suite shares two cores).
    func waitFor(_ count: Int, clock: ManualClock?, seconds: Int = 90) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while self.count < count, !ended.withLock({ $0 }), ContinuousClock.now < deadline {
            if let clock, clock.sleeperCount > 0 { clock.advance(by: .seconds(1)) }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return self.count >= count
    }

    /// Waits until the feed ended.
    func waitForEnd(seconds: Int = 90) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while !ended.withLock({ $0 }), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return ended.withLock { $0 }
    }
}

/// The events a feed sent, in order.
final class EventLog: Sendable {
    let all = Mutex<[FeedEvent]>([])

    func withLock<T>(_ body: (inout [FeedEvent]) -> T) -> T { all.withLock { body(&$0) } }
}

extension FeedCheckpointStore {
    /// Waits until no feed of this store holds `key` (a feed that was left releases it shortly after).
    func waitUntilReleased(_ key: String, seconds: Int = 90) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(seconds)
        while isFeedRunning(key: key), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return !isFeedRunning(key: key)
    }
}

extension QuerySnapshot {
    /// `type id` per change, e.g. `["removed i2", "added i9", "modified i1"]`.
    var changeList: [String] { documentChanges.map { "\($0.type.rawValue) \($0.document.documentID)" } }
    /// The document IDs in order.
    var ids: [String] { documents.map(\.documentID) }
}
