import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// The Listen stream survives its server going away: an emulator of the test's own is stopped mid-stream and
/// started again on the same port (empty: the emulator keeps data in memory). The listener reconnects, its last
/// snapshot stays meanwhile, and it ends equal to a direct query, each snapshot's changes rebuilding its list.
@Suite(.timeLimit(.minutes(3))) struct ListenReconnectLiveTests {
    final class Events: Sendable {
        let all = Mutex<[FeedEvent]>([])
        let started = ContinuousClock.now
        func note(_ event: FeedEvent) {
            all.withLock { $0.append(event) }
            // Every event with its time, so a run that does not recover shows how far it got.
            print("reconnect event at \(ContinuousClock.now - started): \(event)")
        }
        var failures: Int {
            all.withLock { $0.filter { if case .listenFailed = $0 { true } else { false } }.count }
        }
    }

    /// Applies `snapshot`'s changes to `list` (document IDs) as the SDKs define them.
    static func apply(_ snapshot: QuerySnapshot, to list: inout [String]) {
        for change in snapshot.documentChanges {
            if let old = change.oldIndex, old < list.count { list.remove(at: old) }
            if let new = change.newIndex, new <= list.count { list.insert(change.document.documentID, at: new) }
        }
    }

    @Test func theListenerReconnectsAfterTheEmulatorRestarts() async throws {
        // Below the ephemeral range: while this emulator is stopped, no other test's server can be given its port.
        let emulator = try await PrivateEmulator(port: try closedLoopbackPortBelowEphemeralRange())
        // Stopped before the test returns, pass or fail: a stop left to a task of its own could outlive the test
        // process and leave the emulator running.
        do {
            try await Self.reconnect(through: emulator)
        } catch {
            try? await emulator.stop()
            throw error
        }
        try await emulator.stop()
    }

    static func reconnect(through emulator: PrivateEmulator) async throws {
        let db = try Firestore.emulator(host: emulator.host, projectID: "demo-reconnect")
        let items = db.collection("items")
        try await items.document("a").setData(["n": 1])
        try await items.document("b").setData(["n": 2])
        let events = Events()
        let query = items.order(by: "n")
        var feed = query.snapshots(source: .listen, policy: PollingPolicy(interval: .milliseconds(100))) {
            events.note($0)
        }.makeAsyncIterator()
        var list: [String] = []
        let first = try #require(try await feed.next())
        Self.apply(first, to: &list)
        #expect(list == ["a", "b"])

        try await emulator.stop()
        print("reconnect: emulator stopped at \(ContinuousClock.now - events.started)")
        for _ in 0..<600 where events.failures == 0 { try await Task.sleep(for: .milliseconds(50)) }
        #expect(events.failures >= 1)
        try await emulator.start()
        print("reconnect: emulator started again at \(ContinuousClock.now - events.started)")
        try await Self.settled { try await items.document("c").setData(["n": 3]) }
        print("reconnect: c written at \(ContinuousClock.now - events.started)")

        // The restarted emulator holds only "c": the listener must come to exactly that, each snapshot's changes
        // rebuilding its list. One quirk of the restarted emulator is allowed (seen once in about 40 runs): it counts
        // versions from scratch, so the listener's resume token, from before the restart, can name a version above
        // everything it now holds; it then answered with an empty snapshot after c's commit and never sent c (145 s).
        // A listener without that token must then see c at once, which shows the server's state, not the client's.
        let state = Mutex<(list: [String], snapshots: [[String]], rebuilt: Bool)>((list, [], true))
        let consumer = Task { [feed] in
            var feed = feed
            while let snapshot = try await feed.next() {
                let ids = snapshot.documents.map(\.documentID)
                print("reconnect: snapshot \(ids) at \(ContinuousClock.now - events.started)")
                state.withLock { state in
                    Self.apply(snapshot, to: &state.list)
                    state.snapshots.append(ids)
                    if state.list != ids { state.rebuilt = false }
                }
            }
        }
        defer { consumer.cancel() }
        for _ in 0..<600 where state.withLock({ $0.list }) != ["c"] { try await Task.sleep(for: .milliseconds(50)) }
        let seen = state.withLock { $0 }
        #expect(seen.rebuilt, "each snapshot's changes rebuild its list: \(seen.snapshots)")
        #expect(try await query.getDocuments().documents.map(\.documentID) == ["c"])
        #expect(events.all.withLock { $0.contains { if case .listenRecovered = $0 { true } else { false } } })
        if seen.list != ["c"] {
            #expect(seen.snapshots == [[]], "only the quirk's empty snapshot may stand in for c")
            var fresh = query.snapshots(source: .listen).makeAsyncIterator()
            #expect(try await fresh.next()?.documents.map(\.documentID) == ["c"])
            print("reconnect: the restarted emulator never sent c on the resumed target (its resume-token quirk)")
        }
    }

    /// Runs `write` until the restarted emulator takes it: just after its port opens, the emulator may answer a
    /// request with an error of its own start (seen: `CANCELLED` "call already cancelled. Use
    /// ServerCallStreamObserver.setOnCancelHandler() …"), which the client rightly does not retry on its own (the
    /// server SDKs retry a commit only on `UNAVAILABLE`, `INTERNAL`, `RESOURCE_EXHAUSTED` and `DEADLINE_EXCEEDED`).
    /// The test is about the listener, so its write waits for the emulator to settle, for at most 30 s.
    static func settled(_ write: () async throws -> Void) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                return try await write()
            } catch let error as FirestoreError where ContinuousClock.now < deadline {
                print("reconnect: the restarted emulator refused a write, trying again: \(error)")
                try await Task.sleep(for: .milliseconds(200))
            }
        }
    }
}
