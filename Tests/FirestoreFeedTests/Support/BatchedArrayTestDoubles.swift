import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization

/// A snapshot source driven by the test: every listen is a stream the test feeds by hand; terminations are
/// recorded, so a test can see a listen being stopped.
final class ScriptedSnapshotSource: QuerySnapshotSource {
    typealias Event = QuerySnapshotEvent
    private struct State {
        var listens: [AsyncStream<Event>.Continuation] = []
        var terminations: [Int: Int] = [:]
    }
    private let state = Mutex(State())

    func makeSnapshotStream() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        let index = state.withLock { state in
            state.listens.append(continuation)
            return state.listens.count - 1
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { $0.terminations[index, default: 0] += 1 }
        }
        return stream
    }

    /// How many listens were started.
    var listenCount: Int { state.withLock { $0.listens.count } }

    /// Whether listen `index` was stopped (or finished).
    func isTerminated(_ index: Int) -> Bool { terminationCount(index) > 0 }

    /// How many times listen `index` was terminated (a stopped listen is terminated exactly once).
    func terminationCount(_ index: Int) -> Int { state.withLock { $0.terminations[index, default: 0] } }

    /// Sends `event` on listen `index` (the latest when nil).
    func send(_ event: Event, on index: Int? = nil) {
        let continuation = state.withLock { state in
            index.map { state.listens[$0] } ?? state.listens.last
        }
        continuation?.yield(event)
    }

    /// Sends a snapshot of `documents` on listen `index` (the latest when nil).
    func send(_ documents: [DocumentSnapshot], on index: Int? = nil) {
        send(.snapshot(Fruits.snapshot(documents)), on: index)
    }

    /// Ends listen `index` (the latest when nil).
    func finish(_ index: Int? = nil) {
        let continuation = state.withLock { state in index.map { state.listens[$0] } ?? state.listens.last }
        continuation?.finish()
    }
}

/// Documents `projects/p/databases/(default)/documents/fruits/<id>` whose content is a version number.
enum Fruits {
    static let db: Firestore = {
        do {
            return try Firestore.offline(transport: ScriptedTransport([]))
        } catch {
            preconditionFailure("a constant emulator host is valid: \(error)")
        }
    }()

    /// `fruits/<id>` at version `version` (its `updateTime` is `version` seconds after 2024-05-01).
    static func document(_ id: String, _ version: Int = 0) -> DocumentSnapshot {
        let time = (try? Timestamp(seconds: 1_714_521_600 + Int64(version), nanos: 0)) ?? Timestamp(date: Date())
        return DocumentSnapshot(
            firestore: db,
            document: Document(
                name: "projects/p/databases/(default)/documents/fruits/\(id)",
                fields: ["version": .integer(Int64(version))],
                createTime: time, updateTime: time))
    }

    static func documents(_ ids: String...) -> [DocumentSnapshot] { ids.map { document($0) } }

    static func snapshot(_ documents: [DocumentSnapshot]) -> QuerySnapshot {
        QuerySnapshot(query: db.collection("fruits").query, documents: documents, documentChanges: [], readTime: nil)
    }
}

/// A delegate that records what it sees, checks the A-1 rules on every call, and publishes its events.
final class RecordingDelegate: BatchedArrayDelegate {
    enum Event: Equatable, CustomStringConvertible {
        /// `willUpdate`: the items the array showed, and the diff's counts.
        case will(shown: [String], deleted: [Int], inserted: [Int])
        /// `didUpdate`: the items the array showed.
        case did(shown: [String])
        case error(String)

        var description: String {
            switch self {
            case .will(let shown, let deleted, let inserted): "will \(shown) -\(deleted) +\(inserted)"
            case .did(let shown): "did \(shown)"
            case .error(let message): "error \(message)"
            }
        }
    }

    private struct State {
        var log: [Event] = []
        var insideCallback = false
        var violations: [String] = []
    }
    private let state = Mutex(State())
    private let continuation: AsyncStream<Event>.Continuation
    /// The events, in order, for the test to await.
    let events: AsyncStream<Event>
    /// Called inside `willUpdate` after recording, to let a test act from within a callback.
    let onWillUpdate: (@Sendable (BatchedArray) -> Void)?
    /// Seconds to linger in each callback, so that overlapping calls would be caught.
    let linger: Double

    init(linger: Double = 0, onWillUpdate: (@Sendable (BatchedArray) -> Void)? = nil) {
        (events, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .unbounded)
        self.linger = linger
        self.onWillUpdate = onWillUpdate
    }

    var log: [Event] { state.withLock { $0.log } }
    var violations: [String] { state.withLock { $0.violations } }

    private func record(_ event: Event, body: () -> Void = {}) {
        let reentered = state.withLock { state in
            defer { state.insideCallback = true }
            return state.insideCallback
        }
        if reentered { state.withLock { $0.violations.append("re-entered with \(event)") } }
        // Blocks the delegate's thread: tests that linger give the array a delegate queue of its own.
        if linger > 0 { Thread.sleep(forTimeInterval: linger) }
        body()
        state.withLock { state in
            state.log.append(event)
            state.insideCallback = false
        }
        continuation.yield(event)
    }

    func batchedArray(_ array: BatchedArray, willUpdateWith diff: SnapshotArrayDiff<DocumentSnapshot>) {
        let shown = array.items.map(\.documentID)
        if shown != diff.initial.map(\.documentID) || array.count != diff.initial.count {
            state.withLock {
                $0.violations.append("willUpdate shows \(shown), diff.initial is \(diff.initial.count) items")
            }
        }
        if diff.initial.count - diff.deletedIndexes.count + diff.insertedIndexes.count != diff.result.count {
            state.withLock { $0.violations.append("counts do not add up: \(diff)") }
        }
        record(.will(shown: shown, deleted: diff.deletedIndexes, inserted: diff.insertedIndexes)) {
            onWillUpdate?(array)
        }
    }

    func batchedArray(_ array: BatchedArray, didUpdateWith diff: SnapshotArrayDiff<DocumentSnapshot>) {
        let shown = array.items.map(\.documentID)
        if shown != diff.result.map(\.documentID) {
            state.withLock { $0.violations.append("didUpdate shows \(shown), diff.result differs") }
        }
        record(.did(shown: shown))
    }

    func batchedArray(_ array: BatchedArray, queryDidFailWithError error: any Error) {
        let code = (error as? FirestoreError)?.code.rawValue ?? "\(error)"
        record(.error(code))
    }
}

/// Waits until `condition` holds, checking every millisecond for as long as the machine needs, up to 60 s (a
/// guard against a hang, never a measure of speed); returns whether it held.
func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(60)
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(1))
    }
    return condition()
}
