import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// A server or proxy that cannot carry HTTP/2 makes a Listen feed poll at once, every time, and say why; a feed that
/// fell back tries Listen again later. Proxies on loopback in front of the emulator: nginx speaking only HTTP/1.1 in
/// cleartext and over TLS (offered ALPN `h2`, it agrees to none), and Python's `http.server` (`Scripts/fault-proxy`).
@Suite(.timeLimit(.minutes(4))) struct ListenHTTP1FallbackTests {
    typealias S = ListenScript

    /// Seeds `fruits` with `apple` and `banana` through `db` (whose REST path goes through the proxy) and starts a
    /// Listen feed `starts` times, one client each: every start falls back at its first attempt with `reason` (no
    /// `listenFailed` before it) and delivers the documents by polling.
    static func everyStartFallsBack(
        _ makeClient: (String) throws -> Firestore, starts: Int, reason: (String) -> Bool
    ) async throws {
        let seeder = try makeClient("http1-seed")
        for id in ["apple", "banana"] { try await seeder.collection("fruits").document(id).setData(["n": 1]) }
        for start in 1...starts {
            let db = try makeClient("http1-\(start)")
            try await db.collection("fruits").document("apple").setData(["n": 1])
            try await db.collection("fruits").document("banana").setData(["n": 2])
            let events = RecordedEvents()
            let began = ContinuousClock.now
            var feed = db.collection("fruits").order(by: "n").snapshots(
                source: .listen, policy: PollingPolicy(interval: .milliseconds(200))
            ) { events.note($0) }.makeAsyncIterator()
            let first = try #require(try await feed.next())
            let took = ContinuousClock.now - began
            #expect(first.documents.map(\.documentID) == ["apple", "banana"])
            let lines = events.lines
            #expect(lines.count == 1, "start \(start): \(lines)")
            #expect(lines.first.map(reason) == true, "start \(start): \(lines)")
            print("http/1.1 fallback, start \(start): first snapshot after \(took)")
        }
    }

    @Test func aCleartextHTTP1ProxyFallsBackEveryTime() async throws {
        let emulator = try EmulatorEnvironment.requireHost()
        try await LoopbackNginx.with(label: "http1-clear") { port, folder in
            LoopbackNginx.configuration(
                port: port, folder: folder, listen: "",
                locations: "location / { proxy_pass http://\(emulator); proxy_http_version 1.1; }")
        } _: { proxy in
            let host = String(proxy.baseURL.dropFirst("https://".count))
            try await Self.everyStartFallsBack(
                { try Firestore.emulator(host: host, projectID: EmulatorEnvironment.uniqueProjectID($0)) },
                starts: 12
            ) {
                $0.hasPrefix("fellBackToPolling: unavailable: the server at http://\(host)/")
                    && $0.contains("answered with HTTP/1.1 400 Bad Request, but gRPC needs HTTP/2")
            }
        }
    }

    @Test func aTLSProxyWithoutHTTP2FallsBackEveryTime() async throws {
        let emulator = try EmulatorEnvironment.requireHost()
        try await LoopbackNginx.with(label: "http1-tls") { port, folder in
            LoopbackNginx.configuration(
                port: port, folder: folder, listen: "ssl",
                locations: "location / { proxy_pass http://\(emulator); proxy_http_version 1.1; }")
        } _: { proxy in
            try await Self.everyStartFallsBack(
                { label in
                    Firestore(
                        database: try DatabaseID(projectID: EmulatorEnvironment.uniqueProjectID(label)),
                        baseURL: proxy.baseURL, credentials: EmulatorOwnerCredentials(),
                        transport: CurlTransport(configuration: .init(caBundlePath: proxy.caBundlePath)),
                        isEmulator: true, retryPolicy: .none)
                }, starts: 12
            ) {
                // nginx without http2 ends the handshake with RFC 7301's no_application_protocol alert.
                $0.hasPrefix("fellBackToPolling: unavailable: the server at \(proxy.baseURL)/")
                    && $0.contains("refused HTTP/2 in the TLS handshake (ALPN h2: ")
                    && $0.contains("no application protocol")
            }
        }
    }

    @Test func aPythonHTTP1ProxyFallsBackEveryTime() async throws {
        let proxy = try await FaultProxy.start(target: try EmulatorEnvironment.requireHost(), rate: 0, seed: 1)
        defer { proxy.stop() }
        let host = proxy.host
        // http.server answers a request line of HTTP/2.0 as HTTP/0.9 would: its 505 page, no status line.
        let reason: (String) -> Bool = {
            $0.hasPrefix("fellBackToPolling: unavailable: the server at http://\(host)/")
                && $0.contains(
                    "answered with bytes that are not HTTP/2 (\"<!DOCTYPE HTML>.<html lang=\"en\">.    <he\")")
        }
        try await Self.everyStartFallsBack(
            { try Firestore.emulator(host: host, projectID: EmulatorEnvironment.uniqueProjectID($0)) }, starts: 12,
            reason: reason)
    }

    /// A server that refuses HTTP/2 (505) makes the feed poll (here the polls fail too: the scripted server speaks
    /// only HTTP/2); after `listenRetryAfterFallback` (1 s) the feed tries Listen again, which now works.
    @Test func aFeedThatFellBackTriesListenAgain() async throws {
        var policy = ListenFaultFixture.policy
        policy.listenRetryAfterFallback = .seconds(1)
        var fixture = try await ListenFaultFixture.start(
            [[S.awaitRequests(1), S.http(505, "not now")], S.snapshot(["a"], token: [1], readTime: 10) + [S.hang]],
            policy: policy)
        #expect(try await fixture.nextIDs() == ["a"])
        let lines = fixture.events.lines
        #expect(
            lines.first?.hasPrefix("fellBackToPolling: unknown (HTTP 505): HTTP 505 instead of a gRPC response") == true
        )
        // Between the fallback and the restored Listen only the polls' failures: how many fit in the second before
        // the retry is the machine's speed (none, when the first poll takes longer to fail), so none is required.
        #expect(lines.dropFirst().dropLast().allSatisfy { $0.hasPrefix("pollFailed") }, "\(lines)")
        print("fell back, then restored; polls failed in between: \(lines.count { $0.hasPrefix("pollFailed") })")
        #expect(lines.last == "listenRestored")
        #expect(await fixture.server.listenCalls(atLeast: 2) == 2)
    }
}
