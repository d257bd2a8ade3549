import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// A Listen stream that goes quiet is probed; one that stops answering is found dead within the policy's liveness
/// bound (3 s here: a probe after 2 s of silence, dead 0.75 s after it, looked at every 0.25 s) and reopened on a new
/// connection, resuming from its token. Against `Scripts/grpc-script-server`.
@Suite(.timeLimit(.minutes(3))) struct ListenLivenessTests {
    typealias S = ListenScript

    /// The first probe's target ID (`WatchStream.firstProbeTargetID`).
    static let probe = 1_000_000_000

    /// A path that stops carrying anything (the server reads and writes nothing, the socket stays open, as behind a
    /// stalled proxy or NAT): found dead within the bound, the stream resumes on a new connection.
    @Test func aBlackHoledConnectionIsFoundDeadAndReplaced() async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [S.blackhole], ListenCallEndTests.resumed,
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        let silent = ContinuousClock.now
        let events = fixture.events
        #expect(await events.wait { $0.hasPrefix("listenFailed") })
        let detected = ContinuousClock.now - silent
        #expect(try await fixture.nextIDs() == ["a", "b"])
        let lines = events.lines
        #expect(lines.count == 2)
        #expect(
            lines.first?.hasPrefix("listenFailed deadline-exceeded: the Listen stream received nothing for ") == true)
        #expect(lines.first?.contains("after a liveness probe: the connection or the server stopped answering") == true)
        #expect(lines.last == "listenRecovered")
        // The bound is 3 s: never earlier than the probe's 2 s of silence plus its 0.75 s. How much later a loaded
        // machine takes is the chaos test's figure, not this test's.
        #expect(detected >= .seconds(2.5), "detected after \(detected)")
        let server = fixture.server
        #expect(await server.wait { _ in server.connections == 2 })
        print("black hole detected after \(detected)")
    }

    /// A server that keeps the connection (answers HTTP/2 PINGs) but stops answering on the stream (Node's
    /// nodejs-firestore#1057): the same.
    @Test func aStreamThatStopsAnsweringIsReopened() async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [S.hang], ListenCallEndTests.resumed,
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(try await fixture.nextIDs() == ["a", "b"])
        let lines = fixture.events.lines
        #expect(lines.first?.hasPrefix("listenFailed deadline-exceeded: the Listen stream received nothing") == true)
        #expect(lines.last == "listenRecovered")
        // The probe went out on the first call: a documents target for a document that never exists.
        let probe = await fixture.server.requests(call: 1, atLeast: 2).dropFirst().first
        #expect(probe?["addTarget"]?["targetId"] == .integer(Int64(Self.probe)))
        #expect(
            probe?["addTarget"]?["documents"]?["documents"]
                == ["projects/demo-faults/databases/(default)/documents/firestore-feed-liveness/probe"])
    }

    /// A quiet stream that answers its probe stays: the probe is reported with its billed read, then removed.
    @Test func aQuietStreamThatAnswersItsProbeStays() async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [
                S.awaitRequests(2), S.target("ADD", [Self.probe]), S.target("CURRENT", [Self.probe], token: [9]),
                S.point(11), S.awaitRequests(3), S.target("REMOVE", [Self.probe]), S.hang,
            ]
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        let events = fixture.events
        #expect(await events.wait { $0.hasPrefix("listenProbed") })
        let server = fixture.server
        #expect(await server.wait { _ in server.requests(call: 1).count == 3 })
        #expect(server.requests(call: 1).last?["removeTarget"] == .integer(Int64(Self.probe)))
        #expect(events.lines == ["listenProbed 1"])
        #expect(await server.listenCalls(atLeast: 1) == 1)
    }
}
