import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// A server that breaks HTTP/2 (issue 34, item 2): `Scripts/grpc-script-server` answers every call with a HEADERS
/// frame on a stream the client never opened. nghttp2 ends the connection itself (GOAWAY PROTOCOL_ERROR, RFC 9113
/// §5.4.1); before, the call in flight then waited out its 60 s deadline. Now it ends at once, naming the error, and
/// no later call goes to that connection.
@Suite(.timeLimit(.minutes(3))) struct HTTP2ProtocolErrorTests {
    static let script = #"""
        {"other": [{"rawFrame": {"type": 1, "flags": 4, "stream": 99, "payloadHex": "88"}}, {"hang": true}]}
        """#

    @Test(arguments: ["query", "get", "count", "set"])
    func aFrameOnAStreamNeverOpenedFailsTheCallNamingTheError(operation: String) async throws {
        let server = try await ScriptedGRPCServer.start(script: Self.script)
        let db = try Firestore.emulator(
            host: server.host, projectID: "p", transport: CurlTransport(configuration: .init(requestTimeout: 60))
        ).using(protocol: .grpc)
        let started = ContinuousClock.now
        let error = await #expect(throws: FirestoreError.self) {
            switch operation {
            case "query": _ = try await db.collection("c").getDocuments()
            case "get": _ = try await db.document("c/d").getDocument()
            case "count": _ = try await db.collection("c").count.getAggregation()
            default: try await db.document("c/d").setData(["n": 1])
            }
        }
        let elapsed = ContinuousClock.now - started
        print("protocol error, \(operation): failed after \(elapsed): \(error.map { "\($0)" } ?? "no error")")
        #expect(error?.code == .unavailable)
        #expect(
            error?.message.contains("HTTP/2 protocol error on the connection to") == true,
            "\(String(describing: error))")
        // Not the 60 s deadline (30 s is a hang guard between the two: the retries of an idempotent call take
        // seconds).
        #expect(elapsed < .seconds(30))
        // Every attempt on a connection of its own: the broken connection took no further call. (The server logs a
        // call from its own thread, which may come after the client gave up on it.)
        #expect(await server.wait { _ in !server.events("call").isEmpty })
        let connections = server.events("call").compactMap { call -> Int64? in
            if case .integer(let number)? = call["connection"] { number } else { nil }
        }
        #expect(!connections.isEmpty)
        #expect(Set(connections).count == connections.count, "calls by connection \(connections)")
    }
}
