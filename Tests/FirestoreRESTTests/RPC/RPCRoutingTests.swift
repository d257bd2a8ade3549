import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// How a client chooses and retries its wire protocol (`FirestoreProtocol`, `Firestore.performRPC`), on scripted
/// transports: no network.
@Suite("RPC routing", .timeLimit(.minutes(1)))
struct RPCRoutingTests {
    /// `RunQueryResponse { read_time = 3: { seconds = 1: 1700000000 } }`: an empty result.
    static let emptyRunQuery: [UInt8] = [0x1A, 0x06, 0x08, 0x80, 0xE2, 0xCF, 0xAA, 0x06]
    /// The REST form of the same empty result.
    static let emptyRunQueryJSON = #"[{"readTime":"2023-11-14T22:13:20Z"}]"#

    private func client(_ transport: ScriptedRPCTransport, _ wire: FirestoreProtocol, clock: CountingClock)
        throws -> Firestore
    {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "https://test.invalid/v1/",
            credentials: RefreshingCredentials(), transport: transport, isEmulator: false,
            retryPolicy: RetryPolicy(clock: clock)
        ).using(protocol: wire)
    }

    @Test func grpcSendsRunQueryWithMetadataAndDeadline() async throws {
        let transport = ScriptedRPCTransport(rpc: [.messages([Self.emptyRunQuery])])
        let db = try client(transport, .grpc, clock: CountingClock())
        let response = try await db.collection("c").runQuery()
        #expect(response.documents.isEmpty)
        #expect(response.readTime == (try Timestamp(seconds: 1_700_000_000, nanos: 0)))
        #expect(response.responseBytes == 8)
        #expect(transport.calls.map(\.method) == ["/google.firestore.v1.Firestore/RunQuery"])
        #expect(
            transport.calls.first?.metadata == [
                HTTPHeader("google-cloud-resource-prefix", "projects/p/databases/(default)"),
                HTTPHeader("x-goog-request-params", "project_id=p&database_id=%28default%29"),
                HTTPHeader("authorization", "Bearer token-0"),
            ])
        #expect(transport.calls.first?.timeout == 30)
        #expect(transport.rest.requests.isEmpty)
    }

    @Test func restNeverOpensACall() async throws {
        let rest = ScriptedTransport([.response(status: 200, body: Self.emptyRunQueryJSON)])
        let transport = ScriptedRPCTransport(rest: rest, rpc: [])
        let db = try client(transport, .rest, clock: CountingClock())
        #expect(try await db.collection("c").runQuery().readTime == (try Timestamp(seconds: 1_700_000_000, nanos: 0)))
        #expect(transport.calls.isEmpty)
        #expect(rest.calls == ["POST :runQuery"])
    }

    @Test func automaticFallsBackToRESTWhenHTTP2IsRefusedAndStaysThere() async throws {
        var refused = FirestoreError(code: .unavailable, message: "HTTP/1.1 answer to the HTTP/2 preface")
        refused.lacksHTTP2 = true
        let rest = ScriptedTransport([
            .response(status: 200, body: Self.emptyRunQueryJSON), .response(status: 200, body: Self.emptyRunQueryJSON),
        ])
        let transport = ScriptedRPCTransport(rest: rest, rpc: [.failure(refused)])
        let db = try client(transport, .automatic, clock: CountingClock())
        #expect(try await db.collection("c").runQuery().readTime == (try Timestamp(seconds: 1_700_000_000, nanos: 0)))
        #expect(try await db.collection("c").runQuery().readTime == (try Timestamp(seconds: 1_700_000_000, nanos: 0)))
        #expect(transport.calls.count == 1)
        #expect(rest.calls == ["POST :runQuery", "POST :runQuery"])
    }

    @Test func automaticSendsACommitAgainOverRESTAfterARefusal() async throws {
        var refused = FirestoreError(code: .unavailable, message: "connection closed before HTTP/2 settings")
        refused.mayLackHTTP2 = true
        let rest = ScriptedTransport([
            .response(status: 200, body: #"{"writeResults":[{}],"commitTime":"2023-11-14T22:13:20Z"}"#)
        ])
        let transport = ScriptedRPCTransport(rest: rest, rpc: [.failure(refused)])
        let db = try client(transport, .automatic, clock: CountingClock())
        let result = try await db.document("c/d").delete()
        #expect(result.writeTime == (try Timestamp(seconds: 1_700_000_000, nanos: 0)))
        #expect(transport.calls.map(\.method) == ["/google.firestore.v1.Firestore/Commit"])
        #expect(rest.calls == ["POST :commit"])
    }

    @Test func automaticKeepsAServerErrorOfTheGRPCCall() async throws {
        var notFound = FirestoreError(code: .notFound, message: "no such document")
        notFound.isServerStatus = true
        let transport = ScriptedRPCTransport(rpc: [.failure(notFound)])
        let db = try client(transport, .automatic, clock: CountingClock())
        let error = try await #require(throws: FirestoreError.self) { _ = try await db.collection("c").runQuery() }
        #expect(error.code == .notFound)
        #expect(error.message == "no such document")
        #expect(transport.rest.requests.isEmpty)
    }

    @Test func grpcOnATransportWithoutGRPCIsAFailedPrecondition() async throws {
        let db = try ScriptedTransport([]).firestore().using(protocol: .grpc)
        let error = try await #require(throws: FirestoreError.self) { _ = try await db.collection("c").runQuery() }
        #expect(error.code == .failedPrecondition)
        #expect(error.message == "the transport (ScriptedTransport) cannot carry gRPC calls; use the REST protocol")
    }

    @Test func idempotentCallsAreRetriedHonouringRetryInfoButCommitsAreNot() async throws {
        var unavailable = FirestoreError(code: .unavailable, message: "try later")
        unavailable.isServerStatus = true
        unavailable.retryAfter = .seconds(2)
        let clock = CountingClock()
        let transport = ScriptedRPCTransport(rpc: [
            .failure(unavailable), .messages([Self.emptyRunQuery]), .failure(unavailable),
        ])
        let db = try client(transport, .grpc, clock: clock)
        #expect(try await db.collection("c").runQuery().documents.isEmpty)
        #expect(clock.requestedDelays == [.seconds(2)])
        let error = try await #require(throws: FirestoreError.self) { _ = try await db.document("c/d").delete() }
        #expect(error.code == .unavailable)
        #expect(transport.calls.count == 3)
    }

    @Test func unauthenticatedFetchesANewTokenOnce() async throws {
        var refused = FirestoreError(code: .unauthenticated, message: "token expired")
        refused.isServerStatus = true
        let transport = ScriptedRPCTransport(rpc: [.failure(refused), .messages([Self.emptyRunQuery])])
        let db = try client(transport, .grpc, clock: CountingClock())
        #expect(try await db.collection("c").runQuery().documents.isEmpty)
        #expect(
            transport.calls.map { $0.metadata.first { $0.name == "authorization" }?.value } == [
                "Bearer token-0", "Bearer token-1",
            ])
    }

    @Test func automaticKeepsGRPCWhenBothWiresLackTheMethod() async throws {
        // The emulator's PartitionQuery: grpc-status 12 over gRPC, HTTP 501 over REST.
        var unimplemented = GRPCStatus(
            number: 12, message: "Method google.firestore.v1.Firestore/PartitionQuery is unimplemented"
        ).error
        unimplemented.isServerStatus = true
        let rest = ScriptedTransport([
            .response(
                status: 501,
                body: #"{"error":{"code":501,"message":"PartitionQuery is not implemented","status":"UNIMPLEMENTED"}}"#)
        ])
        let transport = ScriptedRPCTransport(
            rest: rest, rpc: [.failure(unimplemented), .messages([Self.emptyRunQuery])])
        let db = try client(transport, .automatic, clock: CountingClock())
        let error = try await #require(throws: FirestoreError.self) {
            _ = try await db.collectionGroup("g").getPartitions(desiredPartitionCount: 2)
        }
        #expect(error.code == .unimplemented)
        #expect(error.httpStatus == 501)
        #expect(rest.calls == ["POST :partitionQuery"])
        // The next call still goes over gRPC.
        #expect(try await db.collection("c").runQuery().readTime == (try Timestamp(seconds: 1_700_000_000, nanos: 0)))
        #expect(
            transport.calls.map(\.method) == [
                "/google.firestore.v1.Firestore/PartitionQuery", "/google.firestore.v1.Firestore/RunQuery",
            ])
    }

    @Test func automaticStaysOnRESTWhenOnlyTheGRPCServerLacksTheMethod() async throws {
        // A gRPC proxy that routes only Listen: unimplemented over gRPC, the call works over REST.
        let unimplemented = GRPCStatus(number: 12, message: "unknown method").error
        let rest = ScriptedTransport([
            .response(status: 200, body: #"{"collectionIds":["a"]}"#),
            .response(status: 200, body: #"{"collectionIds":["b"]}"#),
        ])
        let transport = ScriptedRPCTransport(rest: rest, rpc: [.failure(unimplemented)])
        let db = try client(transport, .automatic, clock: CountingClock())
        #expect(try await db.listCollectionIds() == ["a"])
        #expect(try await db.listCollectionIds() == ["b"])
        #expect(transport.calls.count == 1)
        #expect(rest.calls == ["POST :listCollectionIds", "POST :listCollectionIds"])
    }
}
