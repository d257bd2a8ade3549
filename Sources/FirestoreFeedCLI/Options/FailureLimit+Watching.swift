import FirestoreFeed
import FirestoreREST
import Synchronization

extension FailureLimit {
    private struct State {
        var consecutive = 0
        var failure: FirestoreError?
        var task: Task<Void, any Error>?
    }

    /// Runs `body` (the watch) with an event handler that reports each event with `report` and, at the limit's
    /// failure, reports nothing more and cancels `body`'s task, then throws that failure (its message saying
    /// how many failures in a row ended the watch). Cancelling the caller cancels `body`.
    /// - Throws: what `body` throws, or the failure that reached the limit.
    package func watching(
        report: @escaping @Sendable (FeedEvent) -> Void,
        _ body: @escaping @Sendable (_ onEvent: @escaping @Sendable (FeedEvent) -> Void) async throws -> Void
    ) async throws {
        guard let limit else { return try await body(report) }
        let state = Mutex(State())
        let onEvent: @Sendable (FeedEvent) -> Void = { event in
            let failure: FirestoreError
            switch event {
            case .pollFailed(let error, _), .listenFailed(let error, _, _): failure = error
            case .recovered, .listenRecovered:
                state.withLock { $0.consecutive = 0 }
                report(event)
                return
            default:
                report(event)
                return
            }
            enum Outcome {
                case report, silent
                case giveUp(Task<Void, any Error>?)
            }
            let outcome = state.withLock { state -> Outcome in
                guard state.failure == nil else { return .silent }
                state.consecutive += 1
                guard state.consecutive >= limit else { return .report }
                state.failure = FirestoreError(
                    code: failure.code,
                    message: failure.message + " (\(limit) failure\(limit == 1 ? "" : "s") in a row: "
                        + "--max-failures \(limit) ends the watch)", httpStatus: failure.httpStatus)
                return .giveUp(state.task)
            }
            switch outcome {
            case .report: report(event)
            case .silent: break
            case .giveUp(let task): task?.cancel()
            }
        }
        let task = Task { try await body(onEvent) }
        let endedEarly = state.withLock { state -> Bool in
            state.task = task
            return state.failure != nil
        }
        if endedEarly { task.cancel() }
        do {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        } catch {
            throw state.withLock({ $0.failure }) ?? error
        }
        if let failure = state.withLock({ $0.failure }) { throw failure }
    }
}
