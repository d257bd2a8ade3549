import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Testing

/// Every way a server can end a Listen call ends in an event and a recovery, or a clear end of the feed: never in
/// silence. Against `Scripts/grpc-script-server`, a real HTTP/2 gRPC server on loopback.
@Suite(.timeLimit(.minutes(3))) struct ListenCallEndTests {
    typealias S = ListenScript

    /// The second call resumes target 1 from the first call's token with the documents it holds, and brings one
    /// more document.
    static let resumed: [JSONValue] = [
        S.awaitRequests(1), S.target("ADD", [1]), S.document(S.name("b"), n: 2, updated: 20),
        S.target("CURRENT", [1], token: [2]), S.point(20), S.hang,
    ]

    /// After a snapshot, the server ends the call with each status the feed retries (OK included: a Listen call
    /// never ends by itself): the feed says so, reconnects, resumes from its token and recovers.
    @Test(arguments: [
        (14, "unavailable"), (1, "cancelled"), (8, "resource-exhausted"), (0, "unavailable"), (13, "internal"),
        (4, "deadline-exceeded"), (10, "aborted"),
    ])
    func aStatusAfterASnapshotIsRetriedAndRecovers(status: Int, name: String) async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [S.end(status, "bye from the script")], Self.resumed,
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(try await fixture.nextIDs() == ["a", "b"])
        let failure = status == 0 ? "the server ended the Listen call (grpc-status 0, OK)" : "bye from the script"
        #expect(fixture.events.lines == ["listenFailed \(name): \(failure)", "listenRecovered"])
        let resume = try #require(await fixture.server.requests(call: 2, atLeast: 1).first)
        #expect(resume["addTarget"]?["resumeToken"] == "AQ==")
        #expect(resume["addTarget"]?["expectedCount"] == 1)
        #expect(await fixture.server.listenCalls(atLeast: 2) == 2)
    }

    /// A status the feed does not retry ends it with the server's error, with no retry and no fallback.
    @Test(arguments: [
        (3, "invalid-argument"), (7, "permission-denied"), (5, "not-found"), (9, "failed-precondition"),
    ])
    func aPermanentStatusEndsTheFeed(status: Int, name: String) async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [S.end(status, "refused by the script")], Self.resumed,
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        let error = await #expect(throws: FirestoreError.self) { _ = try await fixture.nextIDs() }
        #expect(error?.description == "\(name): refused by the script")
        #expect(fixture.events.lines == [])
        #expect(await fixture.server.listenCalls(atLeast: 1) == 1)
    }

    /// A trailers-only answer (the server refuses the call before any message) is noticed at once.
    @Test func aTrailersOnlyRefusalIsRetried() async throws {
        var fixture = try await ListenFaultFixture.start([
            [S.awaitRequests(1), S.trailersOnly(14, "warming up")],
            S.snapshot(["a"], token: [1], readTime: 10) + [S.hang],
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(fixture.events.lines == ["listenFailed unavailable: warming up", "listenRecovered"])
    }

    /// The call ends in the middle of the first snapshot (documents sent, the target not yet current): nothing is
    /// published from the half-sent view; the next call sends it whole.
    @Test func anEndInTheMiddleOfASnapshotPublishesNothingHalfSent() async throws {
        var fixture = try await ListenFaultFixture.start([
            [S.awaitRequests(1), S.target("ADD", [1]), S.document(S.name("x"), n: 9, updated: 5), S.end(14, "mid")],
            S.snapshot(["a"], token: [1], readTime: 10) + [S.hang],
        ])
        // The first snapshot after the heal: every document added, none of the half-sent call's.
        let first = try await fixture.nextSnapshot()
        #expect(first?.ids == ["a"])
        #expect(first?.changes == ["added a - 0"])
        #expect(fixture.events.lines == ["listenFailed unavailable: mid", "listenRecovered"])
    }

    /// HTTP errors on the Listen path instead of a gRPC answer: 503 is retried; 404 (gRPC's `UNIMPLEMENTED` by
    /// the HTTP mapping) on a stream that never answered means the server has no Listen: the feed polls.
    @Test func anHTTP503IsRetried() async throws {
        var fixture = try await ListenFaultFixture.start([
            [S.awaitRequests(1), S.http(503, "try later")], S.snapshot(["a"], token: [1], readTime: 10) + [S.hang],
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        let lines = fixture.events.lines
        #expect(lines.count == 2)
        #expect(
            lines.first?.hasPrefix("listenFailed unavailable (HTTP 503): HTTP 503 instead of a gRPC response") == true)
        #expect(lines.last == "listenRecovered")
    }

    @Test func anHTTP404FallsBackToPolling() async throws {
        let fixture = try await ListenFaultFixture.start([[S.awaitRequests(1), S.http(404, "no such path")]])
        #expect(await fixture.events.wait { $0.hasPrefix("fellBackToPolling: unimplemented (HTTP 404)") })
        #expect(await fixture.server.listenCalls(atLeast: 1) == 1)
    }

    /// Stream resets: `CANCEL` and `REFUSED_STREAM` are retried; trailers followed by a reset keep the trailers'
    /// status.
    @Test(arguments: [
        (8, "cancelled", "CANCEL"), (7, "unavailable", "REFUSED_STREAM"), (2, "internal", "INTERNAL_ERROR"),
    ])
    func aResetIsRetried(code: Int, name: String, reason: String) async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [S.reset(code)], Self.resumed,
        ])
        let first = try await fixture.nextSnapshot()
        #expect(first?.ids == ["a"])
        #expect(first?.changes == ["added a - 0"])
        // Resumed from the token: only what changed after it, computed from the published list.
        let resumed = try await fixture.nextSnapshot()
        #expect(resumed?.ids == ["a", "b"])
        #expect(resumed?.changes == ["added b - 1"])
        let location = "http://\(fixture.server.host)/google.firestore.v1.Firestore/Listen"
        #expect(
            fixture.events.lines == [
                "listenFailed \(name): the server reset the gRPC stream to \(location) (HTTP/2 \(reason))",
                "listenRecovered",
            ])
    }

    @Test func trailersFollowedByAResetKeepTheTrailersStatus() async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [S.end(14, "going away"), S.reset(0)], Self.resumed,
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(try await fixture.nextIDs() == ["a", "b"])
        #expect(fixture.events.lines == ["listenFailed unavailable: going away", "listenRecovered"])
    }

    /// The connection ends under the call: a `GOAWAY`, or the socket closed. The next call gets a new connection (the
    /// rule checked, rather than a count of connections, which any later reconnection would change).
    @Test func aGoAwayIsRetriedOnANewConnection() async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [S.goAway(0)], Self.resumed,
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(try await fixture.nextIDs() == ["a", "b"])
        let location = "http://\(fixture.server.host)/google.firestore.v1.Firestore/Listen"
        #expect(
            fixture.events.lines == [
                "listenFailed unavailable: the server closed the HTTP/2 connection to \(location) (GOAWAY NO_ERROR)",
                "listenRecovered",
            ])
        let connections = await fixture.server.connectionsOfListenCalls(2)
        #expect(connections.count == 2 && connections[0] != connections[1], "calls on connections \(connections)")
    }

    @Test func aClosedConnectionIsRetried() async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [S.close], Self.resumed,
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(try await fixture.nextIDs() == ["a", "b"])
        let location = "http://\(fixture.server.host)/google.firestore.v1.Firestore/Listen"
        #expect(
            fixture.events.lines == [
                "listenFailed unavailable: the server closed the HTTP/2 connection to \(location)", "listenRecovered",
            ])
        let connections = await fixture.server.connectionsOfListenCalls(2)
        #expect(connections.count == 2 && connections[0] != connections[1], "calls on connections \(connections)")
    }

    @Test func anAbortedConnectionIsRetried() async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 10) + [S.abort], Self.resumed,
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(try await fixture.nextIDs() == ["a", "b"])
        let location = "http://\(fixture.server.host)/google.firestore.v1.Firestore/Listen"
        #expect(
            fixture.events.lines == [
                "listenFailed unavailable: the HTTP/2 connection to \(location) failed: Recv failure: Connection reset "
                    + "by peer",
                "listenRecovered",
            ])
        let connections = await fixture.server.connectionsOfListenCalls(2)
        #expect(connections.count == 2 && connections[0] != connections[1], "calls on connections \(connections)")
    }
}
