import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The gRPC transport against loopback sockets that are not gRPC servers: no emulator needed.
@Suite("GRPC loopback", .timeLimit(.minutes(2)))
struct GRPCLoopbackTests {
    @Test func serverThatIsNotHTTP2GivesAClearError() async throws {
        try await LoopbackHTTPServer.with { server in
            let channel = try GRPCChannel(baseURL: server.baseURL)
            let start = ContinuousClock.now
            let error = try await #require(throws: FirestoreError.self) {
                _ = try await channel.unary(method: FirestoreGRPCMethod.getDocument, request: [0x0A, 0x00])
            }
            print("GRPC against HTTP/1.1:", error, "after", ContinuousClock.now - start)
            #expect(error.code == .unavailable)
            #expect(error.message.contains("HTTP/2"))
            #expect(error.message.contains("http://127.0.0.1:\(server.port)/google.firestore.v1.Firestore/GetDocument"))
        }
    }

    @Test func closedPortIsUnavailable() async throws {
        try await withClosedLoopbackPort { port in
            let channel = try GRPCChannel(baseURL: "http://127.0.0.1:\(port)")
            let error = try await #require(throws: FirestoreError.self) {
                _ = try await channel.unary(method: FirestoreGRPCMethod.getDocument, request: [])
            }
            #expect(error.code == .unavailable)
            #expect(error.message.hasPrefix("could not connect"))
        }
    }
}
