import FirestoreTestSupport
import FirestoreTesting
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

    /// A recorded call keeps its status's details: replayed offline, the error has the same message (with the index
    /// link), `indexURL` and `retryAfter` as the live one, and the cassette holds the `RetryInfo` as a
    /// `grpc-status-details-bin` header.
    @Test func aRecordedErrorReplaysWithItsStatusDetails() async throws {
        let link = "https://console.firebase.google.com/v1/r/project/p/firestore/indexes?create_composite=ClBw"
        let server = try await ScriptedGRPCServer.start(
            script: """
                {"other": [{"trailersOnly": {"status": 9, "message": "The query requires an index.",
                  "retryDelay": 2.5, "helpLinks": ["\(link)"]}}]}
                """)
        let path = NSTemporaryDirectory() + "rpc-details-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = RecordingTransport(wrapping: CurlTransport(), savingTo: path)
        let live = try Firestore.emulator(host: server.host, projectID: "p", transport: recorder).using(protocol: .grpc)
        let query = { (db: Firestore) in db.collection("c").whereField("a", isEqualTo: 1).order(by: "b") }
        let recorded = try await #require(throws: FirestoreError.self) { _ = try await query(live).runQuery() }
        #expect(recorded.retryAfter == .milliseconds(2500))

        let cassette = try Cassette(contentsOfFile: path)
        try #require(cassette.interactions.count == 1)
        let details = cassette.interactions[0].response.header(GRPCStatusDetails.headerName)
        #expect(
            details.flatMap { GRPCStatusDetails(headers: [HTTPHeader("grpc-status-details-bin", $0)]) }
                == GRPCStatusDetails(message: "The query requires an index. (\(link))", retryDelay: .milliseconds(2500))
        )

        let offline = Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://replay.invalid/v1/",
            credentials: EmulatorOwnerCredentials(), transport: ReplayTransport(cassette: cassette), isEmulator: true
        ).using(protocol: .grpc)
        let replayed = try await #require(throws: FirestoreError.self) { _ = try await query(offline).runQuery() }
        #expect(replayed.code == .failedPrecondition)
        #expect(replayed.message == "The query requires an index. (\(link))")
        #expect(replayed.indexURL == link)
        #expect(replayed.retryAfter == .milliseconds(2500))
        #expect(replayed.isServerStatus)
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
        // The client's own deadline ended it, not the 60 s default (30 s is a hang guard between the two).
        #expect(elapsed < .seconds(30), "\(elapsed)")
        // The server logs the call from its own thread, which may come after the client gave up on it.
        #expect(await server.wait { _ in !server.events("call").isEmpty })
        let call = try #require(server.events("call").first)
        #expect(call["headers"]?["grpc-timeout"] == "300m")
        #expect(call["path"] == "/google.firestore.v1.Firestore/RunQuery")
    }
}
