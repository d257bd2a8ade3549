import FirestoreREST
import Synchronization

/// The playing of one replayed Listen call (``ReplayListenCall``): the requests the client sent, the task that
/// plays the chosen session, and the response stream. Kept apart from the call, so that the playing task does not
/// keep the call alive: releasing the call ends the playback.
final class ListenSessionPlayback: Sendable {
    /// A request the client sent, and its scrubbed proto3 JSON.
    typealias Sent = (request: ListenRequest, json: JSONValue)

    struct State {
        /// Requests sent and not yet taken by the player: the request and its scrubbed proto3 JSON.
        var sent: [Sent] = []
        var waiter: CheckedContinuation<Sent?, Never>?
        var isEnded = false
        var finishedNormally = false
        var live: (any ListenCall)?
        var task: Task<Void, Never>?
    }

    let player: ListenSessionPlayer
    let live: (any ListenChannel)?
    let metadata: [HTTPHeader]
    let running: ReplayListenChannel.RunningCount
    let stream: AsyncThrowingStream<ListenResponse, any Error>
    private let continuation: AsyncThrowingStream<ListenResponse, any Error>.Continuation
    private let begin: Duration
    private let state = Mutex(State())

    init(
        player: ListenSessionPlayer, live: (any ListenChannel)?, metadata: [HTTPHeader],
        running: ReplayListenChannel.RunningCount
    ) {
        self.player = player
        self.live = live
        self.metadata = metadata
        self.running = running
        (stream, continuation) = AsyncThrowingStream.makeStream(of: ListenResponse.self, throwing: (any Error).self)
        begin = player.stopwatch.elapsed
    }

    func start() {
        running.add(1)
        continuation.onTermination = { [self] _ in end() }
        let task = Task { [self] in await play() }
        state.withLock { $0.task = task }
    }

    var finishedNormally: Bool { state.withLock { $0.finishedNormally } }

    var cancelledError: FirestoreError {
        FirestoreError(code: .cancelled, message: "cancelled while replaying a Listen call from \(player.name)")
    }

    func send(_ request: ListenRequest) throws(FirestoreError) {
        let json = player.options.scrubber.scrub(message: try request.protoJSON())
        enum Action {
            case drop
            case forward(any ListenCall)
            case resume(CheckedContinuation<Sent?, Never>)
        }
        let action = state.withLock { state -> Action in
            if state.isEnded { return .drop }
            if let live = state.live { return .forward(live) }
            if let waiter = state.waiter {
                state.waiter = nil
                return .resume(waiter)
            }
            state.sent.append((request, json))
            return .drop
        }
        switch action {
        case .drop: break
        case .forward(let call): try call.send(request)
        case .resume(let waiter): waiter.resume(returning: (request, json))
        }
    }

    /// Ends the call: no more responses, the player stops, a live call is cancelled. Idempotent.
    func end() {
        let ended = state.withLock {
            state -> (
                CheckedContinuation<Sent?, Never>?, Task<Void, Never>?,
                (any ListenCall)?
            )? in
            guard !state.isEnded else { return nil }
            state.isEnded = true
            defer {
                state.waiter = nil
                state.task = nil
                state.live = nil
            }
            return (state.waiter, state.task, state.live)
        }
        guard let (waiter, task, live) = ended else { return }
        running.add(-1)
        waiter?.resume(returning: nil)
        task?.cancel()
        live?.cancel()
        continuation.finish(throwing: cancelledError)
    }

    // MARK: Playing

    private func play() async {
        guard let first = await nextRequest() else { return }
        switch player.claim(method: Cassette.ListenSession.listenMethod, firstRequest: first.json) {
        case .success(let index):
            await replay(index)
        case .failure(let error):
            if let live {
                await forward(to: live, first: first.request)
            } else {
                finish(throwing: error)
            }
        }
    }

    private func replay(_ index: Int) async {
        let session = player.sessions[index]
        for (position, message) in session.messages.enumerated().dropFirst() {
            switch message.direction {
            case .request:
                guard let sent = await nextRequest() else { return }
                guard sent.json == message.body else {
                    let differences = ListenSessionPlayer.differences(message.body, sent.json)
                    finish(
                        throwing: FirestoreError(
                            code: .failedPrecondition,
                            message:
                                "\(player.name): listenSessions[\(index)].messages[\(position)]: the client sent "
                                + "\(ListenSessionPlayer.excerpt(sent.json)) instead of the recorded request "
                                + "\(ListenSessionPlayer.excerpt(message.body)) (differs at "
                                + differences.prefix(3).joined(separator: ", ") + ")"))
                    return
                }
            case .response:
                do {
                    try await player.waitForTurn(of: message)
                } catch {
                    return
                }
                if let speed = player.options.pace.speed {
                    let moment = begin + Stopwatch.duration(seconds: message.at) / speed
                    do {
                        try await player.stopwatch.sleep(untilElapsed: moment)
                    } catch {
                        return
                    }
                }
                let response: ListenResponse
                do {
                    response = try ListenResponse(protoJSON: message.body)
                } catch {
                    finish(
                        throwing: FirestoreError(
                            code: .dataLoss,
                            message:
                                "\(player.name): listenSessions[\(index)].messages[\(position)]: \(error.message)"))
                    return
                }
                guard deliver(response) else { return }
            }
        }
        switch session.end {
        case .finished?: finish(throwing: nil)
        case .failed(let code, let message)?: finish(throwing: FirestoreError(code: code, message: message))
        case .cancelledByClient?, nil: break
        }
    }

    /// `.newEpisodes`: the call goes to the live (recording) channel, with every request sent so far.
    private func forward(to channel: any ListenChannel, first: ListenRequest) async {
        let call: any ListenCall
        do {
            call = try channel.makeListenCall(metadata: metadata)
        } catch {
            finish(throwing: error)
            return
        }
        let backlog = state.withLock { state -> [ListenRequest]? in
            guard !state.isEnded else { return nil }
            state.live = call
            defer { state.sent = [] }
            return state.sent.map(\.request)
        }
        guard let backlog else {
            call.cancel()
            return
        }
        for request in [first] + backlog { try? call.send(request) }
        do {
            for try await response in call.responses {
                guard deliver(response) else { return }
            }
            finish(throwing: nil)
        } catch {
            finish(throwing: error)
        }
    }

    /// The next request the client sends, or `nil` once the call has ended.
    private func nextRequest() async -> Sent? {
        await withCheckedContinuation {
            (continuation: CheckedContinuation<Sent?, Never>) in
            enum Outcome {
                case ended
                case ready(Sent)
                case waiting
            }
            let outcome = state.withLock { state -> Outcome in
                if state.isEnded { return .ended }
                if !state.sent.isEmpty { return .ready(state.sent.removeFirst()) }
                state.waiter = continuation
                return .waiting
            }
            switch outcome {
            case .ended: continuation.resume(returning: nil)
            case .ready(let sent): continuation.resume(returning: sent)
            case .waiting: break
            }
        }
    }

    private func deliver(_ response: ListenResponse) -> Bool {
        guard !state.withLock({ $0.isEnded }) else { return false }
        if case .terminated = continuation.yield(response) { return false }
        return true
    }

    /// Ends the responses normally (`nil`) or with `error`, as the recorded call ended.
    private func finish(throwing error: (any Error)?) {
        let first = state.withLock { state -> Bool in
            guard !state.isEnded else { return false }
            state.isEnded = true
            state.finishedNormally = error == nil
            state.task = nil
            return true
        }
        guard first else { return }
        running.add(-1)
        continuation.finish(throwing: error)
    }
}
