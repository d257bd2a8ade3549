import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Writes through `Scripts/fault-proxy` in front of the real emulator: a commit whose response is lost is
/// reported as an error and sent once (never silently resent outside a transaction), and a transaction
/// retried on ABORTED applies exactly once.
@Suite(.timeLimit(.minutes(5))) struct WritesUnderFaultsLiveTests {
    /// Clients for one fresh project: `direct` to the emulator, `viaProxy` through a proxy that applies
    /// `fault` to every commit (and passes every other request through).
    static func clients(_ label: String, fault: String, rate: Double = 1, seed: Int = 3) async throws
        -> (direct: Firestore, viaProxy: Firestore, proxy: FaultProxy)
    {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID(label)
        let proxy = try await FaultProxy.start(target: host, rate: rate, seed: seed, faults: [fault], only: [":commit"])
        // No test here waits for a timeout: the deadline only bounds a request that a loaded emulator is slow to
        // answer (10 s once expired on a batchGet in the full suite).
        let transport = CurlTransport(configuration: .init(connectTimeout: 2, requestTimeout: 60))
        return (
            try Firestore.emulator(host: host, projectID: project),
            try Firestore.emulator(host: proxy.host, projectID: project, transport: transport), proxy
        )
    }

    /// The commits the proxy received.
    static func commits(_ proxy: FaultProxy) -> [String] {
        proxy.requestLog.filter { $0.hasSuffix(":commit") }
    }

    /// The response of an increment is lost after the emulator applied it. The caller gets `unavailable`,
    /// the proxy saw one commit, and the counter moved by exactly one. With `reusingConnection` a read first
    /// leaves a kept-alive connection that the commit goes out on: libcurl resends a request on its own when
    /// a reused connection closes without an answer, which must not happen to a commit.
    @Test(arguments: [false, true])
    func lostCommitResponseIsAnErrorAndSentOnce(reusingConnection: Bool) async throws {
        let (direct, viaProxy, proxy) = try await Self.clients("lost-commit", fault: "lostresponse")
        defer { proxy.stop() }
        try await direct.document("counters/c").setData(["n": 0])
        let counter = viaProxy.document("counters/c")
        if reusingConnection {
            #expect(try await counter.getDocument().data() == ["n": 0])
        }
        let error = await #expect(throws: FirestoreError.self) {
            try await counter.updateData(["n": .increment(Int64(1))])
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("http://\(proxy.host)/v1/projects/") == true, "\(String(describing: error))")
        #expect(error?.message.contains("/databases/(default)/documents:commit (") == true)
        #expect(Self.commits(proxy).count == 1, "\(proxy.requestLog)")
        #expect(try await direct.document("counters/c").getDocument().data() == ["n": 1])
    }

    /// A transaction whose commit response is lost is not run again (the commit may have applied): the
    /// closure ran once, the error is reported, the counter moved by one.
    @Test func transactionWithALostCommitResponseIsNotRetried() async throws {
        let (direct, viaProxy, proxy) = try await Self.clients("lost-tx-commit", fault: "lostresponse")
        defer { proxy.stop() }
        try await direct.document("counters/c").setData(["n": 0])
        let runs = CounterTransaction.Attempts()
        let error = await #expect(throws: FirestoreError.self) {
            try await CounterTransaction.increment(viaProxy, attempts: runs)
        }
        #expect(error?.code == .unavailable)
        #expect(runs.count.withLock { $0 } == 1)
        #expect(Self.commits(proxy).count == 1, "\(proxy.requestLog)")
        #expect(try await direct.document("counters/c").getDocument().data() == ["n": 1])
    }

    /// Ten increments in transactions while 40 % of commits get ABORTED (not forwarded): each aborted
    /// attempt is run again, and the counter ends at exactly ten.
    @Test(.timeLimit(.minutes(2))) func transactionRetriedOnAbortedAppliesOnce() async throws {
        let (direct, viaProxy, proxy) = try await Self.clients("aborted-tx", fault: "aborted", rate: 0.4, seed: 5)
        defer { proxy.stop() }
        try await direct.document("counters/c").setData(["n": 0])
        let runs = CounterTransaction.Attempts()
        for _ in 0..<10 { try await CounterTransaction.increment(viaProxy, attempts: runs) }
        let commits = Self.commits(proxy)
        let aborted = commits.filter { $0.hasPrefix("fault=aborted ") }.count
        #expect(try await direct.document("counters/c").getDocument().data() == ["n": 10])
        #expect(aborted >= 2, "\(commits)")
        #expect(commits.count == 10 + aborted)
        #expect(runs.count.withLock { $0 } == 10 + aborted)
    }
}
