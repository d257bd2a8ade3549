import FirestoreREST
import Foundation
import Synchronization

/// A query's result kept as a list for many clients over server-sent events: each client gets a `reset` event with
/// the whole list, then a `patch` event per snapshot (``LiveListEvent``, ``LiveListPatch``), and a client that
/// reconnects with its `Last-Event-ID` gets exactly the events it missed (from a bounded replay log), or one `reset`
/// when its id is older than the log.
///
/// ```swift
/// let list = LiveList(capacity: 1_000)
/// Task { try await list.run(db.collection("fruits").order(by: "name")) }   // until cancelled
/// // In an HTTP handler: write each event's `serverSentEvent` to a `text/event-stream` response.
/// for await event in list.events(lastEventID: request.headers["Last-Event-ID"]) { try await write(event.serverSentEvent) }
/// ```
///
/// The list starts empty at event `firstEventID` (by default the time it was made, in microseconds since 1970, so that
/// a restarted server's new list numbers its events after the old one's: a browser back with an old id gets a
/// `reset`, never another list's patches); the first snapshot is the patch after it, inserting every document. Each
/// client's events
/// are buffered up to `clientBuffer`; a client that falls further behind is cut (its stream ends), and reconnects
/// with its last id as an `EventSource` does. Any HTTP server can serve the stream: it is text.
public final class LiveList: Sendable {
    private struct State {
        var documents: [Document] = []
        var readTime: Timestamp?
        var lastID: UInt64
        var log: LiveListReplayLog
        var clients: [UInt64: AsyncStream<LiveListEvent>.Continuation] = [:]
        var nextClient: UInt64 = 0
        var cut = 0

        /// Takes the clients in `ended` out of ``clients``.
        mutating func remove(_ ended: [UInt64]) {
            for client in ended { clients[client] = nil }
        }
    }

    private let state: Mutex<State>
    /// The clients whose streams ended (the consumer stopped or was cancelled), not yet taken out of the state's
    /// `clients`. A stream's termination handler notes its client here and never takes the state's lock: it runs
    /// under the consuming task's own lock when that task is cancelled, and ``update(documents:readTime:)`` takes that
    /// task's lock (resuming it with the next event) while it holds the state's; taking the state's lock in the
    /// handler would take the two locks in both orders (a deadlock: a client that goes away while an event is
    /// published stopped the list). Taken alone or under the state's lock, never the other way.
    private let ended = Mutex<[UInt64]>([])
    private let clientBuffer: Int

    /// A live list keeping the last `capacity` events for reconnecting clients and buffering at most `clientBuffer`
    /// events per client.
    /// - Parameters:
    ///   - capacity: the most events kept for clients that reconnect (at least 1).
    ///   - clientBuffer: the most events buffered for one client; one more cuts it (at least 1).
    ///   - firstEventID: the number of the empty list's event (its `reset`); patches follow from the next
    ///     number. By default the microseconds since 1970 now: a list made later (a restarted server) then numbers
    ///     its events after every event of one made earlier, provided that one made fewer than a million events a
    ///     second and the clock did not go back, so an `EventSource` that comes back with the earlier list's
    ///     `Last-Event-ID` gets a `reset` (its id is older than the log) instead of the new list's patches applied to
    ///     the old list.
    public init(capacity: Int = 1_000, clientBuffer: Int = 256, firstEventID: UInt64? = nil) {
        let first = firstEventID ?? UInt64(max(0, Date().timeIntervalSince1970 * 1_000_000))
        state = Mutex(State(lastID: first, log: LiveListReplayLog(capacity: capacity)))
        self.clientBuffer = max(clientBuffer, 1)
    }

    /// The number of the last event (``init(capacity:clientBuffer:firstEventID:)``'s `firstEventID` before the first
    /// snapshot).
    public var lastEventID: UInt64 { state.withLock { $0.lastID } }

    /// The clients connected now.
    public var clientCount: Int {
        state.withLock { state in
            state.remove(takeEnded())
            return state.clients.count
        }
    }

    /// The clients noted as ended since the last call.
    private func takeEnded() -> [UInt64] {
        ended.withLock { ended in
            defer { ended.removeAll() }
            return ended
        }
    }

    /// The clients cut so far for falling more than `clientBuffer` events behind.
    public var cutClients: Int { state.withLock { $0.cut } }

    /// Follows `query`'s snapshots (`snapshots(source:interval:onEvent:)`) into the list until the calling task is
    /// cancelled (returns normally) or the feed fails for good (throws its error; the list keeps its last state).
    /// `onEvent` gets the feed's events: a failed poll or stream, a retry, a reconnect (`firestore-feed serve` prints
    /// them as `watch` does).
    public func run(
        _ query: some QueryRepresentable, source: FeedSource = .listen, interval: Duration = .seconds(1),
        onEvent: (@Sendable (FeedEvent) -> Void)? = nil
    ) async throws {
        do {
            for try await snapshot in query.snapshots(source: source, interval: interval, onEvent: onEvent) {
                update(documents: snapshot.documents.compactMap(\.document), readTime: snapshot.readTime)
            }
        } catch is CancellationError {
            return
        }
    }

    /// Makes `documents` (in query order) the list: a `patch` event to every client when anything differs (a
    /// document's name, position, update time or fields); nothing otherwise.
    /// - Complexity: O(n log n) for the diff (``SnapshotArrayDiff``), plus the JSON of the changed documents.
    public func update(documents: [Document], readTime: Timestamp?) {
        let cut = state.withLock { state -> [AsyncStream<LiveListEvent>.Continuation] in
            state.remove(takeEnded())
            let diff = SnapshotArrayDiff(initial: state.documents, result: documents)
            state.documents = documents
            state.readTime = readTime
            guard !diff.isEmpty else { return [] }
            state.lastID += 1
            let event = LiveListEvent(
                id: state.lastID, kind: .patch, data: LiveListPatch.json(diff, readTime: readTime).serializedString())
            state.log.append(event)
            var cut: [AsyncStream<LiveListEvent>.Continuation] = []
            for (client, continuation) in state.clients {
                if case .dropped = continuation.yield(event) {
                    state.clients[client] = nil
                    state.cut += 1
                    cut.append(continuation)
                }
            }
            return cut
        }
        // Outside the lock: finishing runs the stream's termination handler, which takes it.
        for continuation in cut { continuation.finish() }
    }

    /// A client's events: after `lastEventID` (a reconnecting `EventSource`'s `Last-Event-ID`) the events it missed
    /// when the log holds them all, else (no id, an id the log no longer holds, or not a number of this list) one
    /// `reset` with the list now; then every `patch` as it comes. The stream ends when the client is cut (more than
    /// `clientBuffer` events behind) or its consumer stops iterating.
    public func events(lastEventID: String? = nil) -> AsyncStream<LiveListEvent> {
        let (stream, continuation) = AsyncStream<LiveListEvent>.makeStream(
            bufferingPolicy: .bufferingOldest(clientBuffer))
        let client = state.withLock { state -> UInt64 in
            state.remove(takeEnded())
            let missed = lastEventID.flatMap { UInt64($0.trimmingCharacters(in: .whitespaces)) }.flatMap {
                state.log.events(after: $0, last: state.lastID)
            }
            for event in missed ?? [
                LiveListEvent.reset(id: state.lastID, documents: state.documents, readTime: state.readTime)
            ] {
                continuation.yield(event)
            }
            state.nextClient += 1
            state.clients[state.nextClient] = continuation
            return state.nextClient
        }
        continuation.onTermination = { [weak self] _ in
            self?.ended.withLock { $0.append(client) }
        }
        return stream
    }
}
