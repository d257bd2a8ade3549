import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// A Listen stream that goes quiet is probed; one that stops answering is found dead within the policy's liveness
/// bound (3 s here, `ListenFaultFixture.livenessPolicy`: a probe after 2 s of silence, dead 0.75 s after it, looked at
/// every 0.25 s) and reopened on a new connection, resuming from its token. Against `Scripts/grpc-script-server`.
///
/// Every script ends in a hang, which the short bound ends too, 2.75 s into it: on a loaded machine a check made that
/// late sees the reopened call found dead as well. So the tests check what comes first and what each line says, never
/// how many lines, calls or connections there are at the end.
@Suite(.timeLimit(.minutes(3))) struct ListenLivenessTests {
    typealias S = ListenScript

    /// The first probe's target ID (`WatchStream.firstProbeTargetID`).
    static let probe = 1_000_000_000

    /// How a call found dead is reported. The watchdog counts its ticks, not the time that passed, so the figures are
    /// exact however late a loaded machine runs each tick: 11 ticks of 0.25 s without a message, the last 3 of them
    /// after the probe.
    static let dead =
        "listenFailed deadline-exceeded: the Listen stream received nothing for 2.75 s, 0.75 s of them after a "
        + "liveness probe: the connection or the server stopped answering"

    /// Checks that `lines` (read after the resumed call's snapshot) begin with the first call found dead and that the
    /// feed then recovered. Before the recovery there may be more calls found dead (a resumed call that a loaded
    /// machine's scripted server took longer than the bound to answer), never anything else.
    static func expectFoundDeadThenRecovered(
        _ lines: [String], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(lines.first == Self.dead, "\(lines)", sourceLocation: sourceLocation)
        let recovered = lines.firstIndex(of: "listenRecovered")
        #expect(recovered != nil, "\(lines)", sourceLocation: sourceLocation)
        if let recovered {
            #expect(
                lines[..<recovered].allSatisfy { $0.hasPrefix("listenFailed") }, "\(lines)",
                sourceLocation: sourceLocation)
        }
    }

    /// A path that stops carrying anything (the server reads and writes nothing, the socket stays open, as behind a
    /// stalled proxy or NAT): found dead within the bound, the stream resumes on a new connection.
    @Test func aBlackHoledConnectionIsFoundDeadAndReplaced() async throws {
        var fixture = try await ListenFaultFixture.start(
            [S.snapshot(["a"], token: [1], readTime: 10) + [S.blackhole], ListenCallEndTests.resumed],
            policy: ListenFaultFixture.livenessPolicy)
        #expect(try await fixture.nextIDs() == ["a"])
        let silent = ContinuousClock.now
        let events = fixture.events
        #expect(await events.wait { $0.hasPrefix("listenFailed") })
        // How long it took is the machine's figure, printed for whoever reads the log: the rule is the message's tick
        // count, checked below.
        print("black hole detected after \(ContinuousClock.now - silent)")
        #expect(try await fixture.nextIDs() == ["a", "b"])
        Self.expectFoundDeadThenRecovered(events.lines)
        let connections = await fixture.server.connectionsOfListenCalls(2)
        #expect(connections.count == 2 && connections[0] != connections[1], "calls on connections \(connections)")
    }

    /// A server that keeps the connection (answers HTTP/2 PINGs) but stops answering on the stream (Node's
    /// nodejs-firestore#1057): the same.
    @Test func aStreamThatStopsAnsweringIsReopened() async throws {
        var fixture = try await ListenFaultFixture.start(
            [S.snapshot(["a"], token: [1], readTime: 10) + [S.hang], ListenCallEndTests.resumed],
            policy: ListenFaultFixture.livenessPolicy)
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(try await fixture.nextIDs() == ["a", "b"])
        Self.expectFoundDeadThenRecovered(fixture.events.lines)
        // The probe went out on the first call: a documents target for a document that never exists.
        let probe = await fixture.server.requests(call: 1, atLeast: 2).dropFirst().first
        #expect(probe?["addTarget"]?["targetId"] == .integer(Int64(Self.probe)))
        #expect(
            probe?["addTarget"]?["documents"]?["documents"]
                == ["projects/demo-faults/databases/(default)/documents/firestore-feed-liveness/probe"])
        let connections = await fixture.server.connectionsOfListenCalls(2)
        #expect(connections.count == 2 && connections[0] != connections[1], "calls on connections \(connections)")
    }

    /// A quiet stream that answers its probe stays: the probe is reported with its billed read, then removed, and the
    /// call goes on. Only a later probe left unanswered ends it.
    @Test func aQuietStreamThatAnswersItsProbeStays() async throws {
        var fixture = try await ListenFaultFixture.start(
            [
                S.snapshot(["a"], token: [1], readTime: 10) + [
                    S.awaitRequests(2), S.target("ADD", [Self.probe]), S.target("CURRENT", [Self.probe], token: [9]),
                    S.point(11), S.awaitRequests(3), S.target("REMOVE", [Self.probe]), S.hang,
                ]
            ], policy: ListenFaultFixture.livenessPolicy)
        #expect(try await fixture.nextIDs() == ["a"])
        let events = fixture.events
        #expect(await events.wait { $0.hasPrefix("listenProbed") })
        let server = fixture.server
        let requests = await server.requests(call: 1, atLeast: 3)
        #expect(requests.dropFirst().first?["addTarget"]?["targetId"] == .integer(Int64(Self.probe)))
        #expect(requests.dropFirst(2).first?["removeTarget"] == .integer(Int64(Self.probe)))
        let lines = events.lines
        #expect(lines.first == "listenProbed 1", "\(lines)")
        // The script hangs after removing the probe, so 2 s later the stream probes again, and that probe, left
        // unanswered, ends the call: a loaded machine may get this far before these lines are read. Whatever follows
        // the answered probe must be that: the call found dead only after a second probe went out on it.
        if lines.count > 1 {
            #expect(lines[1] == Self.dead, "\(lines)")
            let next = await server.requests(call: 1, atLeast: 4).dropFirst(3).first
            #expect(next?["addTarget"]?["targetId"] == .integer(Int64(Self.probe + 1)), "\(String(describing: next))")
        }
    }
}
