import Synchronization

/// The gRPC channels of this process by server, so that a connection in doubt (a call waited in silence, and a PING
/// went out) makes the other channels to the same server check theirs at once: a client's Listen stream and its other
/// calls run on channels of their own, and a path that went dark (a NAT that dropped the client's connections, a
/// proxy that black-holes them) is dark for all of them. Each checks with a PING (``HTTP2Connection/ping(now:)``,
/// spaced as gRPC servers require) and goes on if it is answered; one that is not fails as any unanswered PING does.
/// Without it, a channel's dead connection was noticed only when that channel next used it, a silence and a PING
/// timeout later (a feed group member's renewal and then its shard's Listen target: twice in a row).
enum HTTP2PathWatch {
    private final class Entry: Sendable {
        let baseURL: String
        nonisolated(unsafe) weak var loop: HTTP2Loop?

        init(baseURL: String, loop: HTTP2Loop) {
            self.baseURL = baseURL
            self.loop = loop
        }
    }

    private static let entries = Mutex<[ObjectIdentifier: Entry]>([:])

    /// Starts watching `loop`, a channel to `baseURL`.
    static func register(_ loop: HTTP2Loop, baseURL: String) {
        let entry = Entry(baseURL: baseURL, loop: loop)
        entries.withLock { $0[ObjectIdentifier(loop)] = entry }
    }

    /// Stops watching `loop` (it stopped).
    static func unregister(_ loop: HTTP2Loop) {
        _ = entries.withLock { $0.removeValue(forKey: ObjectIdentifier(loop)) }
    }

    /// A connection of `loop` to `baseURL` pinged for a call waiting in silence: every other channel to that server
    /// pings its connections now.
    static func pathDoubted(to baseURL: String, from loop: HTTP2Loop) {
        let others = entries.withLock { entries in
            entries.values.filter { $0.baseURL == baseURL }.compactMap(\.loop).filter { $0 !== loop }
        }
        for other in others { other.checkPath() }
    }
}
