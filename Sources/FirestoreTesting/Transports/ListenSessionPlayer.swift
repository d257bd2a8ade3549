import FirestoreREST
import Synchronization

/// The Listen sessions a ``ReplayTransport`` replays, and which of them calls have taken: a call takes the
/// first unplayed session whose first message is a request equal to the call's first request (both in scrubbed
/// proto3 JSON), as an HTTP request takes the first unplayed matching interaction.
final class ListenSessionPlayer: Sendable {
    let sessions: [Cassette.ListenSession]
    let options: ReplayTransport.Options
    /// How the cassette is named in error messages.
    let name: String
    /// Times the replayed calls.
    let stopwatch: Stopwatch
    /// In session order, the transport's recorded interactions, which Listen responses wait for.
    let turns: Turns?
    private let claimed: Mutex<[Bool]>

    /// The HTTP side of a session-ordered replay: a Listen response waits until the interactions the client had
    /// sent when it was recorded were played (``Cassette/ListenSession/Message/afterInteractions``).
    struct Turns: Sendable {
        let order: ReplaySessionOrder
        /// Each interaction as `interaction N (METHOD PATH)`.
        let describe: [String]
    }

    init(sessions: [Cassette.ListenSession], options: ReplayTransport.Options, name: String, turns: Turns? = nil) {
        self.sessions = sessions
        self.options = options
        self.name = name
        self.stopwatch = Stopwatch(options.clock)
        self.turns = turns
        self.claimed = Mutex(Array(repeating: false, count: sessions.count))
    }

    /// Returns once the interactions sent before `message` (`messages[position]` of session `session`) when it was
    /// recorded have been played: session order, and a message that records
    /// ``Cassette/ListenSession/Message/afterInteractions``; at once otherwise.
    /// - Throws: `FirestoreError` `.failedPrecondition` naming the interaction it waits for when nobody
    ///   requests that one and nothing is played for ``ReplayTransport/Options/stallTimeout``;
    ///   `CancellationError` when the waiting task is cancelled.
    func waitForTurn(of message: Cassette.ListenSession.Message, session: Int, position: Int) async throws {
        guard let turns, let count = message.afterInteractions, count > 0 else { return }
        let needed = min(count, turns.describe.count)
        try await turns.order.waitForTurn(needed) { [name] missing in
            FirestoreError(
                code: .failedPrecondition,
                message:
                    "\(name): listenSessions[\(session)].messages[\(position)] was recorded after \(count) "
                    + "interaction\(count == 1 ? "" : "s") and is held until \(count == 1 ? "it was" : "they were") "
                    + "played, but \(turns.describe[missing]) was not requested in "
                    + "\(Stopwatch.text(turns.order.stallTimeout)) s: the code under test does not make the requests "
                    + "(writes) recorded while it listened; make them too, or use ordering .perRequest to replay the "
                    + "Listen session on its own")
        }
    }

    /// The indices of sessions no call has taken yet, in order.
    var unplayedIndices: [Int] {
        claimed.withLock { claimed in claimed.indices.filter { !claimed[$0] } }
    }

    /// The session a call whose first request is `request` replays: the first unplayed one starting with it,
    /// else with ``ReplayTransport/Options/allowPlaybackRepeats`` the last one starting with it.
    /// - Returns: the session's index, or an error naming the request and the closest recorded session.
    func claim(method: String, firstRequest request: JSONValue) -> Result<Int, FirestoreError> {
        let matching = sessions.indices.filter { index in
            sessions[index].method == method && sessions[index].messages.first?.direction == .request
                && sessions[index].messages.first?.body == request
        }
        let taken: Int? = claimed.withLock { claimed in
            guard let index = matching.first(where: { !claimed[$0] }) else { return nil }
            claimed[index] = true
            return index
        }
        if let taken { return .success(taken) }
        if let last = matching.last, options.allowPlaybackRepeats { return .success(last) }
        let sent = Self.excerpt(request)
        guard matching.isEmpty else {
            let list = matching.map(String.init).joined(separator: ", ")
            return .failure(
                FirestoreError(
                    code: .failedPrecondition,
                    message: "\(name): no unplayed Listen session starts with \(sent): session"
                        + "\(matching.count == 1 ? " \(list) was" : "s \(list) were all") played"
                        + " (\(options.allowPlaybackRepeatsName) repeats the last one)"))
        }
        var message = "\(name): no recorded Listen session starts with the request \(sent)"
        let closest = sessions.indices.compactMap { index -> (index: Int, differences: [String])? in
            guard let first = sessions[index].messages.first, first.direction == .request else { return nil }
            return (index, Self.differences(first.body, request))
        }.min { $0.differences.count < $1.differences.count }
        if let closest {
            message += "; closest is session \(closest.index), which differs at "
            message += closest.differences.prefix(3).joined(separator: ", ")
        } else {
            message += " (the cassette has no Listen session that starts with a request)"
        }
        return .failure(FirestoreError(code: .failedPrecondition, message: message))
    }

    /// The member paths at which `recorded` and `sent` differ (`addTarget.resumeToken`), depth first.
    static func differences(_ recorded: JSONValue, _ sent: JSONValue, at path: String = "") -> [String] {
        switch (recorded, sent) {
        case (.object(let a), .object(let b)):
            return Set(a.keys).union(b.keys).sorted().flatMap { key -> [String] in
                let place = path.isEmpty ? key : path + "." + key
                guard let left = a[key], let right = b[key] else { return [place] }
                return differences(left, right, at: place)
            }
        case (.array(let a), .array(let b)) where a.count == b.count:
            return zip(a, b).enumerated().flatMap { differences($1.0, $1.1, at: "\(path)[\($0)]") }
        default:
            return recorded == sent ? [] : [path.isEmpty ? "the top level" : path]
        }
    }

    /// `json` serialized, cut to 300 characters.
    static func excerpt(_ json: JSONValue) -> String {
        let text = json.serializedString()
        return text.count > 300 ? text.prefix(300) + "..." : text
    }
}
