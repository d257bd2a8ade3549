import Testing

@testable import FirestoreFeed
@testable import FirestoreREST

/// ``ListenConnectionMachine``, event by event: what a Listen stream does when its call ends, answers or goes quiet.
@Suite(.timeLimit(.minutes(1))) struct ListenConnectionMachineTests {
    typealias Machine = ListenConnectionMachine

    static let t0 = Timestamp.minimum
    static let down = FirestoreError(code: .unavailable, message: "down")

    /// Back-off 1 s, 2 s, 4 s ... with a jitter of 1 %; liveness bound 60 s.
    static let policy = PollingPolicy(
        errorBackoff: .init(initial: .seconds(1), multiplier: 2, maximum: .seconds(60)), jitter: 0.01,
        listenLivenessTimeout: .seconds(60))

    /// The end of a call, with the jitter at its top (random 1: 1 % more).
    static func end(_ machine: inout Machine, _ error: FirestoreError, at now: Timestamp = t0) -> Machine.EndDecision {
        machine.callEnded(error, random: 1, now: now)
    }

    static func error(_ code: FirestoreError.Code, _ message: String = "x", lacks: Bool = false, may: Bool = false)
        -> FirestoreError
    {
        var error = FirestoreError(code: code, message: message)
        error.lacksHTTP2 = lacks
        error.mayLackHTTP2 = may
        return error
    }

    @Test func failuresBackOffWithTheSleptDelayAndStaySinceTheFirst() throws {
        var machine = Machine(policy: Self.policy)
        machine.callOpened()
        #expect(machine.received(isSnapshotPoint: true) == nil)
        let later = try Timestamp(seconds: 100, nanos: 0)
        machine.callOpened()
        #expect(
            Self.end(&machine, Self.down)
                == .retry(
                    delay: .milliseconds(1010),
                    event: .listenFailed(Self.down, retryIn: .milliseconds(1010), staleSince: Self.t0)))
        machine.callOpened()
        #expect(machine.received(isSnapshotPoint: false) == nil)
        // Answered but no snapshot point: still failing, still stale since the first failure.
        #expect(
            Self.end(&machine, Self.down, at: later)
                == .retry(
                    delay: .milliseconds(2020),
                    event: .listenFailed(Self.down, retryIn: .milliseconds(2020), staleSince: Self.t0)))
        machine.callOpened()
        #expect(machine.received(isSnapshotPoint: true) == .listenRecovered(staleSince: Self.t0))
        #expect(machine.failures == 0)
        machine.callOpened()
        #expect(
            Self.end(&machine, Self.down, at: later)
                == .retry(
                    delay: .milliseconds(1010),
                    event: .listenFailed(Self.down, retryIn: .milliseconds(1010), staleSince: later)))
    }

    @Test func unauthenticatedRenewsOnceThenEnds() {
        var machine = Machine(policy: Self.policy)
        let refused = Self.error(.unauthenticated, "expired")
        machine.callOpened()
        _ = machine.received(isSnapshotPoint: true)
        #expect(Self.end(&machine, refused) == .renewCredentials)
        machine.callOpened()
        #expect(Self.end(&machine, refused) == .finish(refused))
        #expect(machine.phase == .finished)
    }

    @Test func unauthenticatedRenewsAgainAfterASnapshotPoint() {
        var machine = Machine(policy: Self.policy)
        let refused = Self.error(.unauthenticated, "expired")
        machine.callOpened()
        #expect(Self.end(&machine, refused) == .renewCredentials)
        machine.callOpened()
        _ = machine.received(isSnapshotPoint: true)
        #expect(Self.end(&machine, refused) == .renewCredentials)
    }

    @Test(arguments: [FirestoreError.Code.invalidArgument, .permissionDenied, .notFound, .failedPrecondition])
    func aPermanentErrorEnds(code: FirestoreError.Code) {
        var machine = Machine(policy: Self.policy)
        machine.callOpened()
        let error = Self.error(code)
        #expect(Self.end(&machine, error) == .finish(error))
    }

    @Test func proofOfNoHTTP2FallsBackOnlyBeforeAnyAnswer() {
        var fresh = Machine(policy: Self.policy)
        fresh.callOpened()
        #expect(Self.end(&fresh, Self.error(.unavailable, "h1", lacks: true)) == .fallBack(reason: "unavailable: h1"))
        var answered = Machine(policy: Self.policy)
        answered.callOpened()
        _ = answered.received(isSnapshotPoint: true)
        answered.callOpened()
        let error = Self.error(.unavailable, "h1", lacks: true)
        #expect(
            Self.end(&answered, error)
                == .retry(
                    delay: .milliseconds(1010),
                    event: .listenFailed(error, retryIn: .milliseconds(1010), staleSince: Self.t0)))
    }

    @Test func unimplementedBeforeAnyAnswerFallsBack() {
        var machine = Machine(policy: Self.policy)
        machine.callOpened()
        #expect(Self.end(&machine, Self.error(.unimplemented, "no")) == .fallBack(reason: "unimplemented: no"))
    }

    @Test func aSuspectedRefusalFallsBackTheSecondTimeInARow() {
        var machine = Machine(policy: Self.policy)
        let closed = Self.error(.unavailable, "closed", may: true)
        machine.callOpened()
        #expect(
            Self.end(&machine, closed)
                == .retry(
                    delay: .milliseconds(1010),
                    event: .listenFailed(closed, retryIn: .milliseconds(1010), staleSince: Self.t0)))
        machine.callOpened()
        #expect(Self.end(&machine, closed) == .fallBack(reason: "unavailable: closed (twice in a row)"))
    }

    @Test func aSuspectedRefusalBetweenOtherFailuresIsRetried() {
        var machine = Machine(policy: Self.policy)
        machine.callOpened()
        _ = Self.end(&machine, Self.error(.unavailable, "closed", may: true))
        machine.callOpened()
        _ = Self.end(&machine, Self.down)
        machine.callOpened()
        guard case .retry = Self.end(&machine, Self.error(.unavailable, "closed", may: true)) else {
            Issue.record("a suspected refusal after another failure fell back")
            return
        }
    }

    @Test func realtimeUpdatesSwitchedOffFallsBackWithTheServersReason() {
        var machine = Machine(policy: Self.policy)
        machine.callOpened()
        _ = machine.received(isSnapshotPoint: true)
        machine.callOpened()
        let error = Self.error(.failedPrecondition, "Realtime updates are disabled for this database.")
        #expect(
            Self.end(&machine, error)
                == .fallBack(reason: "failed-precondition: Realtime updates are disabled for this database."))
    }

    /// 60 s: a probe after 40 s of silence (8 ticks of 5 s), dead 15 s (3 ticks) after it; a message resets both.
    @Test func aQuietCallIsProbedThenDeclaredDead() {
        var machine = Machine(policy: Self.policy)
        #expect(machine.liveness == Machine.Liveness(timeout: .seconds(60)))
        #expect(machine.liveness.probeAfter == .seconds(40))
        #expect(machine.liveness.probeTimeout == .seconds(15))
        #expect(machine.liveness.tick == .seconds(5))
        machine.callOpened()
        var decisions: [Machine.TickDecision] = []
        for _ in 0..<11 { decisions.append(machine.tick()) }
        #expect(decisions == Array(repeating: .nothing, count: 7) + [.probe, .nothing, .nothing] + [decisions[10]])
        guard case .dead(let error) = decisions[10] else {
            Issue.record("not dead after 55 s: \(decisions[10])")
            return
        }
        #expect(
            error.description
                == "deadline-exceeded: the Listen stream received nothing for 55 s, 15 s of them after a liveness probe: "
                + "the connection or the server stopped answering")
    }

    @Test func aMessageClearsTheSilence() {
        var machine = Machine(policy: Self.policy)
        machine.callOpened()
        for _ in 0..<8 { _ = machine.tick() }
        _ = machine.received(isSnapshotPoint: false)
        var decisions: [Machine.TickDecision] = []
        for _ in 0..<8 { decisions.append(machine.tick()) }
        #expect(decisions == Array(repeating: .nothing, count: 8))
        #expect(machine.tick() == .probe)
    }

    @Test func noCallNoWatchdog() {
        var machine = Machine(policy: Self.policy)
        for _ in 0..<20 { #expect(machine.tick() == .nothing) }
    }
}
