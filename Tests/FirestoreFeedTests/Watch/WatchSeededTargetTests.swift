import FirestoreREST
import FirestoreTestSupport
import Synchronization
import Testing

@testable import FirestoreFeed

/// A Listen target seeded from a durable checkpoint (a feed group's shard taken over from the last owner's
/// checkpoint, a checkpointed feed started again) delivers as its first snapshot the changes since the checkpoint,
/// however soon the server answers its `add_target`: the add leaves only once the listener is on the target.
///
/// Found by `FeedGroupLiveTests`: a member taking a shard over from a checkpoint delivered every document of the
/// shard as added (3 handovers in 54, on a loaded machine). The add left before the listener joined; the emulator
/// answered, and the stream published the target's first snapshot, before the joining thread went on, and the
/// listener then got that snapshot as the target's current one: every document added, not the changes since
/// the checkpoint (and a document removed since would have gone unnoticed).
@Suite(.timeLimit(.minutes(1))) struct WatchSeededTargetTests {
    typealias Aggregator = WatchChangeAggregatorTests

    /// A Listen transport whose calls record, for each `add_target`, whether a listener was on the target when it
    /// left (``listening``, which the test sets), and answer an add carrying a resume token at once, inside
    /// `send`, with ``answer``: the fastest a server can be. Other adds are answered by the test
    /// (``Call/respond(_:)``).
    final class AnsweringTransport: ListenTransport {
        let answer: @Sendable (Int32) -> [ListenResponse]
        let listening = Mutex<(@Sendable (Int32) -> Bool)?>(nil)
        let log = Mutex<[Call]>([])

        init(answer: @escaping @Sendable (Int32) -> [ListenResponse]) { self.answer = answer }

        func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
            throw FirestoreError(code: .unavailable, message: "this transport makes no HTTP requests")
        }

        func makeListenChannel(for firestore: Firestore) throws(FirestoreError) -> any ListenChannel {
            Channel(transport: self)
        }

        var calls: [Call] { log.withLock { $0 } }

        struct Channel: ListenChannel {
            let transport: AnsweringTransport

            func makeListenCall(metadata: [HTTPHeader]) throws(FirestoreError) -> any ListenCall {
                let call = Call(transport: transport)
                transport.log.withLock { $0.append(call) }
                return call
            }

            var activeCallCount: Int { transport.calls.count }
        }

        final class Call: ListenCall {
            let transport: AnsweringTransport
            let responses: AsyncThrowingStream<ListenResponse, any Error>
            private let continuation: AsyncThrowingStream<ListenResponse, any Error>.Continuation
            /// The requests sent; each target added, and whether a listener was on it then.
            let log = Mutex<(sent: [ListenRequest], adds: [Int32: Bool])>(([], [:]))

            init(transport: AnsweringTransport) {
                self.transport = transport
                (responses, continuation) = AsyncThrowingStream.makeStream(
                    of: ListenResponse.self, throwing: (any Error).self)
            }

            func send(_ request: ListenRequest) throws(FirestoreError) {
                log.withLock { $0.sent.append(request) }
                guard case .add(let target) = request.targetChange else { return }
                let listened = transport.listening.withLock { $0 }?(target.targetID) ?? false
                log.withLock { $0.adds[target.targetID] = listened }
                if case .resumeToken? = target.resumePoint { respond(transport.answer(target.targetID)) }
            }

            func cancel() {
                continuation.finish(throwing: FirestoreError(code: .cancelled, message: "cancelled"))
            }

            func respond(_ responses: [ListenResponse]) {
                for response in responses { continuation.yield(response) }
            }
        }
    }

    static func changes(_ snapshot: QuerySnapshot) -> [String] {
        snapshot.documentChanges.map { "\($0.type) \($0.document.documentID)" }
    }

    /// Polls `condition` every millisecond for up to 30 s.
    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<30_000 where !condition() { try await Task.sleep(for: .milliseconds(1)) }
        #expect(condition())
    }

    /// The stream is open (another query's target is current on it); a target seeded from a checkpoint of a and b
    /// is added, and the server answers at once that b changed: the add left with the listener on the target, and
    /// its first snapshot is that change, not a and b added.
    @Test func aSeededTargetIsAddedOnlyOnceItsListenerJoinedAndDeliversTheChangesSinceItsCheckpoint() async throws {
        let transport = AnsweringTransport { id in
            [
                Aggregator.target(.add, [id]), Aggregator.change("b", version: 2, targets: [id]),
                Aggregator.target(.current, [id], token: [9]), Aggregator.point(20),
            ]
        }
        let db = try Firestore.offline(transport: transport)
        let pool = WatchStreamPool(clock: ManualClock())
        transport.listening.withLock { listening in
            listening = { [weak pool, weak db] id in
                guard let db, let stream = pool?.stream(for: db) else { return false }
                return stream.state.withLock { $0.targets[id]?.fanOut.count ?? 0 } > 0
            }
        }

        // Another query's target opens the stream's call and becomes current.
        var other = pool.snapshots(of: db.collection("D").query, policy: PollingPolicy(), onEvent: nil)
            .makeAsyncIterator()
        try await Self.waitUntil { transport.calls.first?.log.withLock { $0.sent.count } == 1 }
        let call = try #require(transport.calls.first)
        call.respond([Aggregator.target(.add, [1]), Aggregator.target(.current, [1], token: [1]), Aggregator.point(10)])
        #expect(try await other.next()?.documents.isEmpty == true)

        let query = db.collection("C").query
        let checkpoint = FeedCheckpoint(
            key: "k", query: "q", source: "listen", deltaField: nil,
            documents: [Aggregator.document("a"), Aggregator.document("b")],
            readTime: try Timestamp(seconds: 10, nanos: 0), deltaWatermark: nil, lastKeysScan: nil,
            resumeToken: [5], committedAt: try Timestamp(seconds: 10, nanos: 0), generation: 1)
        let seed = CheckpointResume.listenView(from: checkpoint, query: query, resumeToken: [5])
        let buffer = CoalescingBuffer(coalesce: SnapshotCoalescing.query(query, onEvent: nil), onEvent: nil)
        pool.feed(buffer, of: query, policy: PollingPolicy(), onEvent: nil, checkpoint: ("checkpoint k", seed))

        let first = try #require(try await buffer.next())
        #expect(call.log.withLock { $0.adds } == [1: true, 2: true])
        #expect(first.documents.map(\.documentID) == ["a", "b"])
        #expect(Self.changes(first) == ["modified b"])
        buffer.terminate()
    }
}
