import FirestoreFeed
import FirestoreREST
import Synchronization

/// The playing of one replayed Listen call (``ReplayListenCall``): the requests the client sent, the task that
/// plays the chosen session, and the response stream. Kept apart from the call, so that the playing task does not
/// keep the call alive: releasing the call ends the playback.
final class ListenSessionPlayback: Sendable {
    /// A request the client sent, and its scrubbed proto3 JSON.
    typealias Sent = (request: ListenRequest, json: JSONValue)

    /// What waiting for the client's next request gave.
    enum Next {
        /// The request.
        case sent(Sent)
        /// The call ended.
        case ended
        /// Nothing was sent for the stall timeout.
        case stalled
    }

    struct State {
        /// Requests sent and not yet taken by the player: the request and its scrubbed proto3 JSON.
        var sent: [Sent] = []
        var waiter: CheckedContinuation<Next, Never>?
        /// Distinguishes the waits for a request, so a stall watchdog only ends its own.
        var waitID = 0
        /// A wait whose watchdog fired before it began waiting.
        var stalledWait: Int?
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
            case resume(CheckedContinuation<Next, Never>)
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
        case .resume(let waiter): waiter.resume(returning: .sent((request, json)))
        }
    }

    /// Ends the call: no more responses, the player stops, a live call is cancelled. Idempotent.
    func end() {
        let ended = state.withLock {
            state -> (
                CheckedContinuation<Next, Never>?, Task<Void, Never>?,
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
        waiter?.resume(returning: .ended)
        task?.cancel()
        live?.cancel()
        continuation.finish(throwing: cancelledError)
    }

    // MARK: Playing

    private func play() async {
        guard case .sent(let first) = await nextRequest(stallAfter: nil) else { return }
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
        let timeout = player.options.stallTimeout
        for (position, message) in session.messages.enumerated().dropFirst() {
            switch message.direction {
            case .request:
                let sent: Sent
                switch await nextRequest(stallAfter: timeout) {
                case .sent(let request): sent = request
                case .ended: return
                case .stalled:
                    let left = session.messages[position...].filter { $0.direction == .response }.count
                    finish(
                        throwing: FirestoreError(
                            code: .failedPrecondition,
                            message:
                                "\(player.name): listenSessions[\(index)].messages[\(position)]: the recording has the "
                                + "client send \(ListenSessionPlayer.excerpt(message.body)) here, and nothing was sent in "
                                + "\(Stopwatch.text(timeout)) s"
                                + (left > 0
                                    ? ", so the \(left) responses recorded after it cannot be played"
                                    : ": every recorded response was played and the client listens on; nothing more "
                                        + "can come from this recording")))
                    return
                }
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
                    try await player.waitForTurn(of: message, session: index, position: position)
                } catch let error as FirestoreError {
                    finish(throwing: error)
                    return
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
        case .cancelledByClient?, nil:
            // The recorded client left here; one that listens on would wait forever.
            do {
                try await ContinuousClock().sleep(for: timeout)
            } catch {
                return
            }
            finish(
                throwing: FirestoreError(
                    code: .failedPrecondition,
                    message:
                        "\(player.name): listenSessions[\(index)]: all \(session.messages.count) recorded messages were "
                        + "played and the recording ends with the client leaving, but it still listens "
                        + "\(Stopwatch.text(timeout)) s later; nothing more can come from this recording (the code "
                        + "under test listens longer than the recorded run)"))
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

    /// The next request the client sends; `.ended` once the call has ended; `.stalled` when nothing was sent within
    /// `timeout` (real time; `nil`: no limit).
    private func nextRequest(stallAfter timeout: Duration?) async -> Next {
        let id = state.withLock { state in
            state.waitID += 1
            return state.waitID
        }
        let watchdog = timeout.map { timeout in
            Task { [self] in
                do {
                    try await ContinuousClock().sleep(for: timeout)
                } catch {
                    return
                }
                let waiter = state.withLock { state -> CheckedContinuation<Next, Never>? in
                    guard state.waitID == id else { return nil }
                    guard let waiter = state.waiter else {
                        state.stalledWait = id
                        return nil
                    }
                    state.waiter = nil
                    return waiter
                }
                waiter?.resume(returning: .stalled)
            }
        }
        defer { watchdog?.cancel() }
        return await withCheckedContinuation {
            (continuation: CheckedContinuation<Next, Never>) in
            let outcome = state.withLock { state -> Next? in
                if state.isEnded { return .ended }
                if !state.sent.isEmpty { return .sent(state.sent.removeFirst()) }
                if state.stalledWait == id { return .stalled }
                state.waiter = continuation
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
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
