import Synchronization
import Testing

@testable import FirestoreREST

/// `RPCCallGate`: the connection pool's priority rule for a client's gRPC calls.
@Suite("RPC call gate", .timeLimit(.minutes(1)))
struct RPCCallGateTests {
    final class Order: Sendable {
        private let names = Mutex<[String]>([])
        func append(_ name: String) { names.withLock { $0.append(name) } }
        var all: [String] { names.withLock { $0 } }
    }

    @Test func limitsFollowThePoolsRule() {
        let gate = RPCCallGate(capacity: 8)
        #expect(gate.limit(for: .normal) == 8)
        #expect(gate.limit(for: .background) == 6)
        #expect(gate.limit(for: .high) == Int.max)
        #expect(RPCCallGate(capacity: 1).limit(for: .background) == 1)
        #expect(RPCCallGate(capacity: 2).limit(for: .background) == 1)
    }

    @Test func waitersStartMostUrgentFirstAndHighNeverWaits() async throws {
        let gate = RPCCallGate(capacity: 2)
        try await gate.enter(.normal)
        try await gate.enter(.normal)
        try await gate.enter(.high)  // over the capacity at once
        #expect(gate.counts.running == 3)
        let order = Order()
        let background = Task {
            try await gate.enter(.background)
            order.append("background")
        }
        while gate.counts.waiting < 1 { await Task.yield() }
        let normal = Task {
            try await gate.enter(.normal)
            order.append("normal")
        }
        while gate.counts.waiting < 2 { await Task.yield() }
        gate.leave()  // 2 running: neither may start (normal's limit 2, background's 1)
        #expect(gate.counts == (running: 2, waiting: 2))
        gate.leave()  // 1 running: the normal call starts, the background one still may not
        try await normal.value
        #expect(order.all == ["normal"])
        gate.leave()
        gate.leave()  // 0 running: the background call starts
        try await background.value
        #expect(order.all == ["normal", "background"])
        #expect(gate.counts == (running: 1, waiting: 0))
    }

    @Test func aCancelledWaiterLeavesTheQueue() async throws {
        let gate = RPCCallGate(capacity: 1)
        try await gate.enter(.normal)
        let waiter = Task { try await gate.enter(.normal) }
        while gate.counts.waiting < 1 { await Task.yield() }
        waiter.cancel()
        let error = await #expect(throws: FirestoreError.self) { try await waiter.value }
        #expect(error?.code == .cancelled)
        #expect(gate.counts == (running: 1, waiting: 0))
    }
}
