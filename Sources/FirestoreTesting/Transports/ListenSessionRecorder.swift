import FirestoreREST
import Synchronization

/// The Listen sessions a ``RecordingTransport`` has recorded so far, unscrubbed (the transport scrubs them when
/// it hands out or saves a cassette), after the base cassette's sessions.
final class ListenSessionRecorder: Sendable {
    /// The sessions of the cassette being appended to.
    let base: [Cassette.ListenSession]
    /// Times every message since the start of its call.
    let stopwatch: Stopwatch
    private let sessions = Mutex<[Cassette.ListenSession]>([])

    init(base: [Cassette.ListenSession], clock: any Clock<Duration>) {
        self.base = base
        self.stopwatch = Stopwatch(clock)
    }

    /// The recorded sessions, in the order their calls were opened.
    var recorded: [Cassette.ListenSession] {
        sessions.withLock { $0 }
    }

    /// Starts a session; returns its index and its start time for ``record(_:_:in:since:)``.
    func begin(method: String, metadata: [HTTPHeader]) -> (index: Int, start: Duration) {
        let metadata = metadata.map { HTTPHeader($0.name.lowercased(), $0.value) }
        let start = stopwatch.elapsed
        let index = sessions.withLock { sessions in
            sessions.append(Cassette.ListenSession(method: method, metadata: metadata))
            return sessions.count - 1
        }
        return (index, start)
    }

    /// Appends a message to session `index`, timed to the millisecond from `start`, with
    /// ``Cassette/ListenSession/Message/afterInteractions`` for a response; nothing once it has ended.
    func record(
        _ direction: Cassette.ListenSession.Message.Direction, _ body: JSONValue, in index: Int, since start: Duration,
        afterInteractions: Int? = nil
    ) {
        let at = (Stopwatch.seconds(stopwatch.elapsed - start) * 1000).rounded() / 1000
        sessions.withLock { sessions in
            guard sessions.indices.contains(index), sessions[index].end == nil else { return }
            sessions[index].messages.append(.init(direction, body, at: at, afterInteractions: afterInteractions))
        }
    }

    /// Records how session `index` ended, unless an end is recorded already.
    func end(_ index: Int, _ end: Cassette.ListenSession.End) {
        sessions.withLock { sessions in
            guard sessions.indices.contains(index), sessions[index].end == nil else { return }
            sessions[index].end = end
        }
    }

    /// Records `end` for every session that has not ended yet.
    func endOpenSessions(_ end: Cassette.ListenSession.End) {
        sessions.withLock { sessions in
            for index in sessions.indices where sessions[index].end == nil { sessions[index].end = end }
        }
    }
}
