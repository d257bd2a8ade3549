import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// A long-lived gRPC client whose connection dies without a word (issue 34, item 1): `Scripts/tcp-fault-proxy`
/// between it and the emulator black-holes every connection for 8 s, new ones included, then heals (new connections
/// pass again; the black-holed ones stay dead, as behind a NAT gateway that dropped them). A reader reads once a
/// second throughout. Before, the client kept sending every call to the dead connection, each waiting out its 60 s
/// deadline, for ever. Now a silent call gets its connection pinged, the unanswered PING ends the connection, and
/// the retry opens a new one: no read waits out its deadline, and reads succeed again after the heal.
@Suite(.timeLimit(.minutes(4))) struct DeadConnectionLiveTests {
    struct Outcome: Sendable {
        var started: ContinuousClock.Instant
        var ended: ContinuousClock.Instant
        var error: FirestoreError?
    }

    final class Outcomes: Sendable {
        let list = Mutex<[Outcome]>([])
    }

    @Test func aClientLeavesABlackHoledConnectionAndReadsAgainAfterTheHeal() async throws {
        let emulator = try EmulatorEnvironment.requireHost()
        let proxy = try await LoopbackPythonServer.start(
            "tcp-fault-proxy", arguments: ["--target", emulator, "--interval", "0"])
        defer { proxy.stop() }
        // Short health times so the test is quick; the rule is the same with the defaults (5 s, 10 s).
        let health = CurlTransport.ConnectionHealth(pingAfterSilence: 1, pingTimeout: 2)
        let transport = CurlTransport(configuration: .init(connectTimeout: 3, requestTimeout: 60, health: health))
        let db = try Firestore.emulator(
            host: proxy.host, projectID: EmulatorEnvironment.uniqueProjectID("dead-connection"), transport: transport
        ).using(protocol: .grpc)
        let document = db.document("health/d")
        try await document.setData(["n": 1])

        let outcomes = Outcomes()
        let reader = Task {
            while !Task.isCancelled {
                let started = ContinuousClock.now
                var failure: FirestoreError?
                do {
                    _ = try await document.getDocument()
                } catch {
                    failure = FirestoreError(wrapping: error)
                }
                let outcome = Outcome(started: started, ended: .now, error: failure)
                outcomes.list.withLock { $0.append(outcome) }
                try? await Task.sleep(for: .seconds(1))
            }
        }
        defer { reader.cancel() }
        func successes(after instant: ContinuousClock.Instant) -> [Outcome] {
            outcomes.list.withLock { $0 }.filter { $0.error == nil && $0.started > instant }
        }
        let start = ContinuousClock.now
        try #require(await eventually(seconds: 60) { successes(after: start).count >= 2 }, "reads before the fault")

        try #require(try await proxy.command("blackhole") != nil)
        let blackholed = ContinuousClock.now
        try await Task.sleep(for: .seconds(8))
        try #require(try await proxy.command("heal") != nil)
        let healed = ContinuousClock.now
        // A hang guard: before, no read ever succeeded again.
        let recovered = await eventually(seconds: 150) { !successes(after: healed).isEmpty }
        reader.cancel()
        let all = outcomes.list.withLock { $0 }
        let durations = all.map { $0.ended - $0.started }
        let recovery = successes(after: healed).first.map { $0.ended - healed }
        print(
            "dead connection: black hole 8 s; first read started after the heal succeeded \(recovery.map { "\($0)" } ?? "never") "
                + "after it; longest read \(durations.max() ?? .zero); errors \(all.compactMap(\.error?.code.name)); "
                + "connections through the proxy \(proxy.events("connection").count)")
        #expect(recovered, "a read succeeds after the heal")
        // The rule: a dead connection is left, not waited on. Every read ended before its 60 s deadline could pass
        // (before, the first read after the fault waited the whole deadline, and every later one too).
        #expect(durations.allSatisfy { $0 < .seconds(60) }, "read durations \(durations)")
        #expect(!all.contains { $0.error?.code == .deadlineExceeded }, "\(all.compactMap(\.error))")
        #expect(blackholed < healed)
    }
}
