import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// How a gRPC connection's health decides where the next call goes (``CurlTransport/ConnectionHealth``), against
/// `Scripts/grpc-script-server`: a call that passed its deadline makes its connection suspect, and the next call
/// waits for a PING's answer (a live connection is used again, a dead one is left for a new one); a connection
/// silent for `pingAfterIdle` is pinged when a call goes out on it; one past `maxConnectionAge` takes no new call.
@Suite(.timeLimit(.minutes(2))) struct SuspectConnectionTests {
    /// NOT_FOUND for a GetDocument: the client answers with a snapshot of a missing document.
    static let notFound = #"[{"trailersOnly": {"status": 5, "message": "no document"}}]"#

    static func client(
        _ server: ScriptedGRPCServer, health: CurlTransport.ConnectionHealth, requestTimeout: Double = 3
    ) throws -> Firestore {
        try Firestore.emulator(
            host: server.host, projectID: "p",
            transport: CurlTransport(configuration: .init(requestTimeout: requestTimeout, health: health))
        ).using(protocol: .grpc)
    }

    /// The connection each call arrived on, by call, once the server logged `count` calls (it logs them from its own
    /// thread, which may come after the client saw the answer; 30 s is a hang guard).
    static func connections(_ server: ScriptedGRPCServer, count: Int) async -> [Int64] {
        _ = await server.wait { _ in server.events("call").count >= count }
        return server.events("call").compactMap { call -> Int64? in
            if case .integer(let number)? = call["connection"] { number } else { nil }
        }
    }

    @Test func afterADeadlineALiveConnectionIsUsedAgainOnceItAnswersAPing() async throws {
        // The first call hangs (the server still answers PINGs); the second is answered.
        let server = try await ScriptedGRPCServer.start(script: #"{"others": [[{"hang": true}], \#(Self.notFound)]}"#)
        // 30 s: the answer to the PING comes in milliseconds; a loaded machine must not make the connection look dead.
        // 10 s: the second call's deadline covers that PING's answer and the call's own (a 3 s deadline is a bound a
        // loaded machine can miss).
        let db = try Self.client(server, health: .init(pingTimeout: 30), requestTimeout: 10)
        let late = await #expect(throws: FirestoreError.self) { _ = try await db.document("c/a").getDocument() }
        #expect(late?.code == .deadlineExceeded)
        #expect(try await db.document("c/b").getDocument().exists == false)
        #expect(await Self.connections(server, count: 2) == [1, 1])
        #expect(
            await server.wait { _ in server.events("ping").count >= 1 },
            "the suspect connection was pinged before its next call")
    }

    @Test func afterADeadlineADeadConnectionIsLeftForANewOne() async throws {
        // The first call's connection goes dark (nothing read, nothing written, no PING answered).
        let server = try await ScriptedGRPCServer.start(
            script: #"{"others": [[{"blackhole": true}], \#(Self.notFound)]}"#)
        // The dark connection is certain (the server reads and writes nothing on it), so its PING is never answered and
        // 1 s declares it dead. The second call's own deadline must then cover that PING, a new connection and the
        // answer: 10 s keeps a loaded machine (a scripted server in Python, 8 suites at once) from ending it early,
        // which a 3 s deadline did. A PING after 60 s of silence keeps the first call's end its deadline's (with the
        // default 5 s, the silent call's own PING would end it first, as `unavailable`).
        let db = try Self.client(
            server, health: .init(pingAfterSilence: 60, pingTimeout: 1), requestTimeout: 10)
        let late = await #expect(throws: FirestoreError.self) { _ = try await db.document("c/a").getDocument() }
        #expect(late?.code == .deadlineExceeded)
        // Before, this call went to the dark connection too and waited out its own deadline.
        #expect(try await db.document("c/b").getDocument().exists == false)
        #expect(await Self.connections(server, count: 2) == [1, 2])
    }

    @Test func aConnectionSilentForPingAfterIdleIsPingedWithTheNextCall() async throws {
        let server = try await ScriptedGRPCServer.start(script: #"{"other": \#(Self.notFound)}"#)
        let db = try Self.client(server, health: .init(pingAfterIdle: 1))
        #expect(try await db.document("c/a").getDocument().exists == false)
        let pingsBefore = server.events("ping").count
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(try await db.document("c/b").getDocument().exists == false)
        #expect(await server.wait { _ in server.events("ping").count > pingsBefore })
        #expect(await Self.connections(server, count: 2) == [1, 1])
    }

    @Test func aConnectionPastItsMaximumAgeTakesNoNewCall() async throws {
        let server = try await ScriptedGRPCServer.start(script: #"{"other": \#(Self.notFound)}"#)
        let db = try Self.client(server, health: .init(maxConnectionAge: 1))
        #expect(try await db.document("c/a").getDocument().exists == false)
        try await Task.sleep(for: .milliseconds(1_500))
        #expect(try await db.document("c/b").getDocument().exists == false)
        #expect(await Self.connections(server, count: 2) == [1, 2])
    }

    /// Two clients (two channels) to one server: a call of the second waits in silence, and its connection is
    /// pinged; the first client's connection is pinged too (``HTTP2PathWatch``), since a dead path to the server
    /// would be dead for it as well.
    @Test func aCallWaitingInSilenceMakesTheOtherChannelsToItsServerCheckTheirConnections() async throws {
        let server = try await ScriptedGRPCServer.start(script: #"{"others": [\#(Self.notFound), [{"hang": true}]]}"#)
        let first = try Self.client(server, health: .init(pingAfterSilence: 0.5))
        let second = try Self.client(server, health: .init(pingAfterSilence: 0.5))
        #expect(try await first.document("c/a").getDocument().exists == false)
        let waiting = Task { try? await second.document("c/b").getDocument() }
        defer { waiting.cancel() }
        func pinged(_ connection: Int64) -> Bool {
            server.events("ping").contains { $0["connection"] == .integer(connection) }
        }
        #expect(await server.wait { _ in pinged(2) }, "the silent call's own connection")
        #expect(await server.wait { _ in pinged(1) }, "the other channel's connection")
        #expect(await Self.connections(server, count: 2) == [1, 2])
    }
}
