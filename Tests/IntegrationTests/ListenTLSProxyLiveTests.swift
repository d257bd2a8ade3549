import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The Listen stream over TLS and HTTP/2 negotiated by ALPN (`h2`, offered by the gRPC channel), the way it reaches
/// production, against an nginx on loopback that terminates TLS in front of the emulator:
/// `grpc_pass grpc://EMULATOR` for the gRPC paths and `proxy_pass` (HTTP/1.1) for the REST paths under `/v1/`.
///
/// The setup, the smallest honest one: a throwaway CA and a server certificate it signs for `127.0.0.1`
/// (`subjectAltName=IP:127.0.0.1`), made with `openssl` at test time; nginx started by the test with a private
/// prefix (configuration, logs, pid file and temporary files in a temporary folder) and ended on every path.
/// The client is `Firestore(database:baseURL:credentials:transport:isEmulator:retryPolicy:)` with the base URL
/// `https://127.0.0.1:PROXYPORT`, `EmulatorOwnerCredentials` (`Bearer owner`, which the emulator behind the proxy
/// accepts) and `isEmulator: true`, because the server *is* the emulator: the owner token may go there, and no
/// plain-http rule is involved (the URL is https). The CA reaches both REST and gRPC through
/// `CurlTransport.Configuration.caBundlePath` (`WatchStreamPool` builds the channel from the transport's
/// configuration). The client knows only the proxy's address, so every snapshot came through nginx, and the gRPC
/// transfer refuses any response head that is not HTTP/2.
///
/// nginx must be installed (`Scripts/ensure-deps` installs Debian's `nginx`); when it is missing the tests
/// fail and say so.
@Suite("Listen through a TLS HTTP/2 proxy", .timeLimit(.minutes(2)))
struct ListenTLSProxyLiveTests {
    typealias Change = FeedModesLiveTests.Change

    /// A client of the emulator behind `proxy`; trusting the proxy's CA unless `trustingCA` is false (then the
    /// system trust store, which does not hold the throwaway CA).
    static func client(_ proxy: LoopbackNginx, label: String, trustingCA: Bool = true) throws -> Firestore {
        let configuration = CurlTransport.Configuration(caBundlePath: trustingCA ? proxy.caBundlePath : nil)
        return Firestore(
            database: try DatabaseID(projectID: EmulatorEnvironment.uniqueProjectID(label)),
            baseURL: proxy.baseURL, credentials: EmulatorOwnerCredentials(),
            transport: CurlTransport(configuration: configuration), isEmulator: true, retryPolicy: .none)
    }

    /// Documents written by REST through the proxy, a Listen feed, two writes: the exact change lists, no feed
    /// event at all (no `fellBackToPolling`, no `listenFailed`), one open gRPC call, and nginx's access log shows
    /// the REST commits arriving over HTTP/2.
    @Test func theListenStreamWorksThroughTheProxyWithoutFallingBack() async throws {
        try await TLSGRPCProxy.with(emulatorHost: EmulatorEnvironment.requireHost(), Self.listenThroughTheProxy)
    }

    static func listenThroughTheProxy(_ proxy: LoopbackNginx) async throws {
        let db = try Self.client(proxy, label: "tls-listen")
        #expect(db.baseURL == proxy.baseURL + "/v1/")
        #expect(db.grpcBaseURL.hasPrefix("https://127.0.0.1:"))
        let fruits = db.collection("fruits")
        for (id, name, favourite) in [
            ("apple", "Apple", true), ("banana", "Banana", false), ("cherry", "Cherry", true),
        ] {
            try await fruits.document(id).setData(["name": .string(name), "isFavourite": .boolean(favourite)])
        }
        let events = ListenLiveTests.Events()
        let query = fruits.whereField("isFavourite", isEqualTo: true).order(by: "name")
        var feed = query.snapshots(source: .listen) { events.note($0) }.makeAsyncIterator()
        var changes: [[Change]] = []
        func next() async throws {
            changes.append(ListenLiveTests.changes(try #require(try await feed.next())))
        }
        try await next()
        try await fruits.document("banana").updateData(["isFavourite": true])
        try await next()
        try await fruits.document("apple").delete()
        try await next()
        #expect(
            changes == [
                [
                    Change(type: .added, id: "apple", oldIndex: nil, newIndex: 0),
                    Change(type: .added, id: "cherry", oldIndex: nil, newIndex: 1),
                ],
                [Change(type: .added, id: "banana", oldIndex: nil, newIndex: 1)],
                [Change(type: .removed, id: "apple", oldIndex: 0, newIndex: nil)],
            ])
        // No fallback to polling, and no dropped stream: the snapshots came over one gRPC call of a Listen stream.
        #expect(events.all.withLock { $0 } == [])
        let stream = try #require(WatchStreamPool.shared.stream(for: db))
        #expect(stream.channel.activeCallCount == 1)
        let log = proxy.accessLog()
        // The writes went through the proxy too, as gRPC calls (the default protocol, automatic) over HTTP/2
        // negotiated by ALPN.
        let commit = "\"POST /google.firestore.v1.Firestore/Commit HTTP/2.0\" 200 "
        #expect(log.contains(commit), "access log:\n\(log)")
    }

    /// Without the CA (the system trust store only) the handshake fails verification. The Listen stream reports
    /// it as a permanent error: the feed ends by throwing it, with no `listenFailed` retries and no fallback to
    /// polling (polling would fail the same way). REST writes fail the same way.
    @Test func aClientWithoutTheCAFailsTLSVerification() async throws {
        try await TLSGRPCProxy.with(emulatorHost: EmulatorEnvironment.requireHost(), Self.listenWithoutTheCA)
    }

    static func listenWithoutTheCA(_ proxy: LoopbackNginx) async throws {
        let db = try Self.client(proxy, label: "tls-untrusted", trustingCA: false)
        let events = ListenLiveTests.Events()
        var feed = db.collection("fruits").snapshots(source: .listen) { events.note($0) }.makeAsyncIterator()
        let error = await #expect(throws: FirestoreError.self) { _ = try await feed.next() }
        let reason = "(SSL certificate problem: unable to get local issuer certificate)"
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "TLS certificate verification failed: \(proxy.baseURL)/google.firestore.v1.Firestore/Listen \(reason)"
        )
        #expect(events.all.withLock { $0 } == [])
        #expect(WatchStreamPool.shared.stream(for: db) == nil)

        let restError = await #expect(throws: FirestoreError.self) {
            try await db.document("fruits/apple").setData(["name": "Apple"])
        }
        #expect(restError?.code == .failedPrecondition)
        #expect(
            restError?.message
                == "TLS certificate verification failed: \(proxy.baseURL)/google.firestore.v1.Firestore/Commit \(reason)"
        )
    }
}

/// nginx on a loopback port terminating TLS (``LoopbackNginx``) and HTTP/2 in front of the emulator: gRPC by
/// `grpc_pass`, REST (`/v1/`) by `proxy_pass` over HTTP/1.1.
enum TLSGRPCProxy {
    static func locations(emulatorHost: String) -> String {
        """
                location /google.firestore.v1.Firestore/ {
                    grpc_pass grpc://\(emulatorHost);
                    grpc_read_timeout 1h;
                    grpc_send_timeout 1h;
                }
                location /v1/ {
                    proxy_pass http://\(emulatorHost);
                    proxy_http_version 1.1;
                    proxy_set_header Connection "";
                }
        """
    }

    /// Runs `body` with a fresh proxy, then stops it whether `body` returned or threw.
    static func with(emulatorHost: String, _ body: (LoopbackNginx) async throws -> Void) async throws {
        try await LoopbackNginx.with(
            label: "tls-grpc-proxy",
            configuration: { port, folder in
                LoopbackNginx.configuration(
                    port: port, folder: folder, locations: locations(emulatorHost: emulatorHost))
            }, body)
    }
}
