import FirestoreFeed
import FirestoreREST

/// A Listen call answered from a cassette. Its first request picks the session
/// (``ListenSessionPlayer/claim(method:firstRequest:)``); then the session's messages are played in order:
/// a recorded request waits until the client sends one and must equal it (scrubbed proto3 JSON), a recorded
/// response is delivered at its recorded time after the call's start divided by the replay speed
/// (``ReplayTransport/Pace``, on ``ReplayTransport/Options/clock``), or at once. After the last message the call
/// ends as recorded: normally, with the recorded error, or (cancelled by the client when recorded) not at all,
/// staying open until the client ends it.
///
/// A first request that matches no session, a later request that differs from the recorded one, or a recorded
/// response that does not decode ends ``responses`` with `FirestoreError` `.failedPrecondition` (or
/// `.dataLoss`) naming the session, the message and what differed.
final class ReplayListenCall: ListenCall {
    private let playback: ListenSessionPlayback

    init(
        player: ListenSessionPlayer, live: (any ListenChannel)?, metadata: [HTTPHeader],
        running: ReplayListenChannel.RunningCount
    ) {
        playback = ListenSessionPlayback(player: player, live: live, metadata: metadata, running: running)
        playback.start()
    }

    deinit {
        playback.end()
    }

    func send(_ request: ListenRequest) throws(FirestoreError) {
        try playback.send(request)
    }

    var responses: Responses {
        Responses(base: playback.stream, call: self)
    }

    func cancel() {
        playback.end()
    }

    /// The replayed responses; holds the call, so iterating keeps it running.
    struct Responses: AsyncSequence {
        let base: AsyncThrowingStream<ListenResponse, any Error>
        let call: ReplayListenCall

        func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: base.makeAsyncIterator(), call: call)
        }

        struct AsyncIterator: AsyncIteratorProtocol {
            var base: AsyncThrowingStream<ListenResponse, any Error>.AsyncIterator
            let call: ReplayListenCall

            /// The next response, `nil` when the session ended normally.
            /// - Throws: the recorded error, a mismatch, or `.cancelled` once the call was cancelled.
            mutating func next() async throws -> ListenResponse? {
                if let response = try await base.next() { return response }
                if call.playback.finishedNormally { return nil }
                call.playback.end()
                throw call.playback.cancelledError
            }
        }
    }
}
