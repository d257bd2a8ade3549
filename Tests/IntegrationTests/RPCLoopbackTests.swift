import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// gRPC calls against `Scripts/grpc-script-server`, whose trailers are built by Google's own protobuf runtime: status
/// details and the deadline.
@Suite("RPC loopback", .timeLimit(.minutes(1)))
struct RPCLoopbackTests {
    private func client(_ server: ScriptedGRPCServer, requestTimeout: Double = 60) throws -> Firestore {
        try Firestore.emulator(
            host: server.host, projectID: "p",
            transport: CurlTransport(configuration: .init(requestTimeout: requestTimeout))
        ).using(protocol: .grpc)
    }

    @Test func aFailedPreconditionCarriesTheIndexLinkAndTheRetryDelayOfItsDetails() async throws {
        let link = "https://console.firebase.google.com/v1/r/project/p/firestore/indexes?create_composite=ClBw"
        let server = try await ScriptedGRPCServer.start(
            script: """
                {"other": [{"trailersOnly": {"status": 9, "message": "The query requires an index.",
                  "retryDelay": 1.25, "helpLinks": ["\(link)"]}}]}
                """)
        let error = try await #require(throws: FirestoreError.self) {
            _ = try await client(server).collection("c").whereField("a", isEqualTo: 1).order(by: "b").runQuery()
        }
        #expect(error.code == .failedPrecondition)
        #expect(error.message == "The query requires an index. (\(link))")
        #expect(error.indexURL == link)
        #expect(error.retryAfter == .milliseconds(1250))
        #expect(error.isServerStatus)
    }

    @Test func aCallPastItsDeadlineEndsWithDeadlineExceededAndSentItsTimeout() async throws {
        let server = try await ScriptedGRPCServer.start(script: #"{"other": [{"hang": true}]}"#)
        let start = ContinuousClock.now
        let error = try await #require(throws: FirestoreError.self) {
            _ = try await client(server, requestTimeout: 0.3).collection("c").runQuery()
        }
        let elapsed = ContinuousClock.now - start
        #expect(error.code == .deadlineExceeded)
        #expect(error.message.hasPrefix("gRPC call http://\(server.host)/google.firestore.v1.Firestore/RunQuery"))
        #expect(elapsed < .seconds(5))
        let call = try #require(server.events("call").first)
        #expect(call["headers"]?["grpc-timeout"] == "300m")
        #expect(call["path"] == "/google.firestore.v1.Firestore/RunQuery")
    }
}
