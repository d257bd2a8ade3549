import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Testing

/// The one retry loop (`Firestore.withRetries`) over a real socket: unary gRPC calls against
/// `Scripts/grpc-script-server`, whose trailers-only answers are real HTTP/2 frames. An in-memory transport proves the
/// loop's logic; only a socket proves the status reaches it from the wire.
@Suite("RPC retries over a socket", .timeLimit(.minutes(1)))
struct RPCRetryLoopbackTests {
    /// A client of `server` over gRPC that retries as production clients do, with short waits (the emulator's own
    /// clients do not retry).
    private func client(_ server: ScriptedGRPCServer, maxAttempts: Int) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://\(server.host)/v1/",
            credentials: EmulatorOwnerCredentials(), transport: CurlTransport(), isEmulator: true,
            retryPolicy: RetryPolicy(maxAttempts: maxAttempts, initialBackoff: .milliseconds(10))
        ).using(protocol: .grpc)
    }

    private static let notFound = #"[{"trailersOnly": {"status": 5, "message": "no document"}}]"#

    private static func unavailable(_ message: String) -> String {
        #"[{"trailersOnly": {"status": 14, "message": "\#(message)"}}]"#
    }

    /// The calls the server saw, by path, once it logged `count` of them (it logs from its own thread, which may come
    /// after the client saw the answer; the wait is a hang guard).
    private static func calls(_ server: ScriptedGRPCServer, count: Int) async -> [String] {
        _ = await server.wait { _ in server.events("call").count >= count }
        return server.events("call").compactMap { call -> String? in
            if case .string(let path)? = call["path"] { path } else { nil }
        }
    }

    @Test func aGetAnsweredUnavailableIsSentAgainUntilItIsAnswered() async throws {
        let answers = [Self.unavailable("warming up"), Self.unavailable("still warming"), Self.notFound]
        let server = try await ScriptedGRPCServer.start(
            script: #"{"others": [\#(answers.joined(separator: ", "))]}"#)
        let snapshot = try await client(server, maxAttempts: 5).document("c/a").getDocument()
        #expect(snapshot.exists == false)
        let get = "/google.firestore.v1.Firestore/GetDocument"
        #expect(await Self.calls(server, count: 3) == [get, get, get])
    }

    @Test func retriesEndAtMaxAttemptsWithTheServersLastStatus() async throws {
        let server = try await ScriptedGRPCServer.start(
            script: #"{"others": [\#(Self.unavailable("first")), \#(Self.unavailable("second")), \#(Self.notFound)]}"#)
        let error = try await #require(throws: FirestoreError.self) {
            _ = try await client(server, maxAttempts: 2).document("c/a").getDocument()
        }
        #expect(error.code == .unavailable)
        #expect(error.message == "second")
        #expect(await Self.calls(server, count: 2).count == 2)
    }

    @Test func anInvalidArgumentIsNotSentAgain() async throws {
        let server = try await ScriptedGRPCServer.start(
            script: #"{"others": [[{"trailersOnly": {"status": 3, "message": "bad name"}}], \#(Self.notFound)]}"#)
        let error = try await #require(throws: FirestoreError.self) {
            _ = try await client(server, maxAttempts: 5).document("c/a").getDocument()
        }
        #expect(error.code == .invalidArgument)
        #expect(error.message == "bad name")
        // A second call would have been answered NOT_FOUND: the server saw one call. (A call the client did not make
        // can only be told by its absence; the server logs each call before answering it, so one logged call and the
        // client's error mean no second call was made.)
        #expect(await Self.calls(server, count: 1).count == 1)
    }

    @Test func aCommitAnsweredUnavailableIsNotSentAgain() async throws {
        let server = try await ScriptedGRPCServer.start(
            script: #"{"others": [\#(Self.unavailable("maybe applied")), \#(Self.notFound)]}"#)
        let error = try await #require(throws: FirestoreError.self) {
            try await client(server, maxAttempts: 5).document("c/a").setData(["n": 1])
        }
        #expect(error.code == .unavailable)
        #expect(await Self.calls(server, count: 1) == ["/google.firestore.v1.Firestore/Commit"])
    }
}
