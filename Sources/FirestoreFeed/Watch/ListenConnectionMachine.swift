import FirestoreREST

/// The connection side of one Listen stream as a value: what happens to its gRPC calls (opened, answered, ended,
/// silent), and what the stream must do about it. Events go in; decisions come out, for the stream to carry out after
/// its lock is released (the shape of async-http-client's `Transaction+StateMachine`). What Firebase's
/// `PersistentStream` does for its watch stream; pure, so every path is tested without a network
/// (`ListenConnectionMachineTests`).
///
/// The rules:
/// - **Every end of a call is a decision.** A permanent error (the retry table's `feedRetries` false: invalid
///   argument, permission denied, not found ...) ends the feed with it. `UNAUTHENTICATED` (an access token that
///   expired while the stream was open) reopens the stream at once with renewed credentials, without a
///   `listenFailed`; a second one in a row ends the feed. Anything else reopens after the policy's capped back-off,
///   with jitter: `FeedEvent.listenFailed(_:retryIn:staleSince:)` gives the delay actually slept.
/// - **Fallback only on proof.** A stream that never received a message falls back to polling when its failure
///   shows the server or a proxy cannot carry gRPC over HTTP/2 (`FirestoreError` `lacksHTTP2`: ALPN without `h2`,
///   an HTTP/1.x answer, 426 or 505), when the server does not implement `Listen`
///   (`UNIMPLEMENTED`), when the database has realtime updates switched off (`FAILED_PRECONDITION` naming
///   realtime updates), or after two connections in a row closed before any HTTP/2 settings. A reset or a closed
///   connection alone is retried as Listen: a server restarting looks the same; so is a connection that stays
///   silent (no HTTP/2 settings within the connect timeout): a dead path looks the same.
/// - **Recovery is a consistent snapshot.** The failure count (and the back-off with it) is cleared when the reopened
///   stream reaches a consistent snapshot point (every target current, a `NO_CHANGE` with a read time): only then is
///   the feed's state fresh again, and `FeedEvent.listenRecovered(staleSince:)` says since when it was stale. A
///   server that answers and then fails before any snapshot point counts as failing, so `--max-failures` ends it.
/// - **Liveness.** A stream that receives nothing for ``Liveness/probeAfter`` is probed
///   (``ListenLiveness``): if nothing arrives within ``Liveness/probeTimeout`` more, the call is dead (a stalled
///   proxy, a NAT that forgot the connection, a server that stopped sending); it is ended and the stream reopened on
///   a new connection. Production Firestore sends a `NO_CHANGE` about every 30 seconds on an idle stream, so a live
///   production stream is never probed.
struct ListenConnectionMachine: Sendable {
    /// When a quiet stream is probed and when it is declared dead.
    struct Liveness: Sendable, Hashable {
        /// How long a stream may receive nothing before a probe is sent.
        var probeAfter: Duration
        /// How long after the probe the stream may still receive nothing before it is declared dead.
        var probeTimeout: Duration
        /// How often the watchdog looks: the detection time is at most `probeAfter + tick + probeTimeout`.
        var tick: Duration

        /// The split of a liveness `timeout` (the longest time a dead stream goes unnoticed): probe after two thirds
        /// of it, declare dead a quarter of it after the probe, look every twelfth. 60 s gives 40 s, 15 s and 5 s.
        init(timeout: Duration) {
            probeAfter = timeout * 2 / 3
            probeTimeout = timeout / 4
            tick = timeout / 12
        }
    }

    enum Phase: Sendable, Hashable {
        /// No call is open (before the first, or between a failure and its retry).
        case idle
        /// A call is open and has received nothing yet.
        case opening
        /// A call is open and has answered.
        case open
        /// The stream has ended (its feed finished or fell back).
        case finished
    }

    /// What the stream does when its call ended.
    enum EndDecision: Sendable, Equatable {
        /// Reopen after `delay` (the jittered back-off); `event` is `listenFailed`.
        case retry(delay: Duration, event: FeedEvent)
        /// Renew the credentials (the refused authorization header is invalidated) and reopen at once.
        case renewCredentials
        /// Move every listener to polling; `reason` is shown in `fellBackToPolling(reason:)`.
        case fallBack(reason: String)
        /// End every listener with this error.
        case finish(FirestoreError)
    }

    /// What the watchdog asks for at one tick.
    enum TickDecision: Sendable, Equatable {
        case nothing
        /// Send a liveness probe on the call.
        case probe
        /// End the call as dead and reopen the stream on a new connection: `error` is the failure to report.
        case dead(FirestoreError)
    }

    let liveness: Liveness
    private(set) var phase = Phase.idle
    /// Failures since the last consistent snapshot point, and their back-off.
    private var backoff: FeedBackoff
    /// Whether the last end was an `UNAUTHENTICATED` answered by renewing the credentials.
    private var renewedCredentials = false
    /// Connections in a row that closed before their HTTP/2 settings (`FirestoreError` `mayLackHTTP2`).
    private var suspectedNoHTTP2 = 0
    /// Whether any call of this stream received a message: then HTTP/2 works, and no failure means otherwise.
    private(set) var everAnswered = false
    /// Since when the feed's state has been stale (the first failure since the last consistent snapshot point).
    private(set) var staleSince: Timestamp?
    /// Ticks since the last message (or since the call opened).
    private var quietTicks = 0
    /// The tick count at which the probe went out, if one is out.
    private var probeSentAt: Int?
    /// Whether a message arrived since the last tick.
    private var heard = false

    /// A machine probing by `policy`'s ``PollingPolicy/listenLivenessTimeout`` and backing off by its error back-off.
    init(policy: PollingPolicy) {
        liveness = Liveness(timeout: policy.listenLivenessTimeout)
        backoff = FeedBackoff(policy: policy)
    }

    /// Failures since the last consistent snapshot point.
    var failures: Int { backoff.failures }

    /// A call was opened.
    mutating func callOpened() {
        phase = .opening
        quietTicks = 0
        probeSentAt = nil
        heard = false
    }

    /// A message arrived on the open call.
    /// - Parameter isSnapshotPoint: the message completed a consistent snapshot point of every target.
    /// - Returns: `listenRecovered` when this is the first consistent snapshot point after failures.
    mutating func received(isSnapshotPoint: Bool) -> FeedEvent? {
        phase = .open
        everAnswered = true
        heard = true
        suspectedNoHTTP2 = 0
        guard isSnapshotPoint else { return nil }
        renewedCredentials = false
        _ = backoff.succeeded()
        guard let staleSince else { return nil }
        self.staleSince = nil
        return .listenRecovered(staleSince: staleSince)
    }

    /// The watchdog's tick (every ``Liveness/tick``).
    mutating func tick() -> TickDecision {
        guard phase == .open || phase == .opening else { return .nothing }
        if heard {
            heard = false
            quietTicks = 0
            probeSentAt = nil
            return .nothing
        }
        quietTicks += 1
        let tick = liveness.tick
        if let probeSentAt {
            guard tick * (quietTicks - probeSentAt) >= liveness.probeTimeout else { return .nothing }
            return .dead(
                FirestoreError(
                    code: .deadlineExceeded,
                    message: "the Listen stream received nothing for \(Self.seconds(tick * quietTicks)) s, "
                        + "\(Self.seconds(tick * (quietTicks - probeSentAt))) s of them after a liveness probe: the "
                        + "connection or the server stopped answering"))
        }
        guard tick * quietTicks >= liveness.probeAfter else { return .nothing }
        probeSentAt = quietTicks
        return .probe
    }

    /// The open call ended with `error`.
    /// - Parameters:
    ///   - random: a number in 0 ..< 1 for the back-off's jitter.
    ///   - now: the wall-clock time, for `staleSince`.
    mutating func callEnded(_ error: FirestoreError, random: Double, now: Timestamp) -> EndDecision {
        phase = .idle
        probeSentAt = nil
        if let reason = Self.fallbackReason(error, neverAnswered: !everAnswered, suspected: &suspectedNoHTTP2) {
            phase = .finished
            return .fallBack(reason: reason)
        }
        if error.code.retryRule.renewsCredentials {
            if !renewedCredentials {
                renewedCredentials = true
                return .renewCredentials
            }
            phase = .finished
            return .finish(error)
        }
        if PollingPolicy.isPermanent(error) {
            phase = .finished
            return .finish(error)
        }
        let stale = staleSince ?? now
        staleSince = stale
        let slept = backoff.failed(retryAfter: error.retryAfter, random: random)
        return .retry(delay: slept, event: .listenFailed(error, retryIn: slept, staleSince: stale))
    }

    /// The stream ended for good.
    mutating func finish() {
        phase = .finished
    }

    /// Why `error` means the stream should poll instead, or `nil`.
    private static func fallbackReason(_ error: FirestoreError, neverAnswered: Bool, suspected: inout Int) -> String? {
        if error.code == .failedPrecondition, error.message.lowercased().contains("realtime") {
            return error.description
        }
        guard neverAnswered else { return nil }
        if error.lacksHTTP2 || error.code == .unimplemented { return error.description }
        if error.mayLackHTTP2 {
            suspected += 1
            if suspected >= 2 { return error.description + " (twice in a row)" }
        } else {
            suspected = 0
        }
        return nil
    }

    private static func seconds(_ duration: Duration) -> String {
        let value = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return value == value.rounded() ? String(Int(value)) : String(value)
    }
}
