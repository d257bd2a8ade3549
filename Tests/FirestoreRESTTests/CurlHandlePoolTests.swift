import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST
@testable import FirestoreWire

/// The connection pool's priorities (issue 19): change-feed polls leave connections to writes and reads, and
/// the commit or rollback that ends a transaction never waits. No network: easy handles are only allocated.
@Suite(.timeLimit(.minutes(2))) struct CurlHandlePoolTests {
    /// Checks out one handle in a task of its own and records when it got it.
    final class Checkout: Sendable {
        final class Slot: Sendable {
            let handle = Mutex<CurlEasyHandle?>(nil)
        }

        let slot = Slot()
        let task: Task<Void, Never>

        init(_ pool: CurlHandlePool, _ priority: HTTPRequest.Priority) {
            let slot = self.slot
            task = Task {
                if let got = try? await pool.checkOut(url: "http://h/", priority: priority) {
                    slot.handle.withLock { $0 = got }
                }
            }
        }

        var hasHandle: Bool { slot.handle.withLock { $0 != nil } }

        /// Waits (polling, at most 30 s) until the handle arrived, and returns it.
        func wait() async throws -> CurlEasyHandle {
            for _ in 0..<3000 {
                if let got = slot.handle.withLock({ $0 }) { return got }
                try await Task.sleep(for: .milliseconds(10))
            }
            throw FirestoreError(code: .deadlineExceeded, message: "no handle within 30 s")
        }
    }

    /// Polls `condition` every 10 ms for at most 30 s.
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<3000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func limitsOfTheDefaultPoolAndOfSmallOnes() {
        let eight = CurlHandlePool(capacity: 8)
        #expect(HTTPRequest.Priority.allCases.map(eight.limit(for:)) == [6, 8, 8])
        #expect(HTTPRequest.Priority.allCases.map(CurlHandlePool(capacity: 16).limit(for:)) == [12, 16, 16])
        #expect(HTTPRequest.Priority.allCases.map(CurlHandlePool(capacity: 4).limit(for:)) == [3, 4, 4])
        #expect(HTTPRequest.Priority.allCases.map(CurlHandlePool(capacity: 2).limit(for:)) == [1, 2, 2])
        #expect(HTTPRequest.Priority.allCases.map(CurlHandlePool(capacity: 1).limit(for:)) == [1, 1, 1])
    }

    /// Six polls hold six of eight connections: the seventh poll waits, writes still get one at once, a write
    /// that waits with the poll is served first, and the poll starts once fewer than six connections are busy.
    @Test func pollsLeaveConnectionsToWrites() async throws {
        let pool = CurlHandlePool(capacity: 8)
        var polls: [CurlEasyHandle] = []
        for _ in 0..<6 { polls.append(try await pool.checkOut(url: "http://h/", priority: .background)) }
        let seventh = Checkout(pool, .background)
        #expect(try await Self.eventually { pool.waitingCount(.background) == 1 })
        let write = try await pool.checkOut(url: "http://h/", priority: .normal)
        let read = try await pool.checkOut(url: "http://h/", priority: .normal)
        #expect(pool.inUseCount == 8)
        #expect(!seventh.hasHandle)
        // A write waiting with the poll is served first.
        let nextWrite = Checkout(pool, .normal)
        #expect(try await Self.eventually { pool.waitingCount(.normal) == 1 })
        pool.checkIn(polls.removeLast())
        let third = try await nextWrite.wait()
        #expect(!seventh.hasHandle)
        // Polls start only while fewer than six connections are busy: five polls and one write still are. A
        // check-in serves the waiters that may take a handle before it returns, so the poll still waiting after
        // both check-ins is the rule, not a matter of time.
        pool.checkIn(write)
        pool.checkIn(read)
        #expect(pool.waitingCount(.background) == 1)
        #expect(!seventh.hasHandle)
        #expect(pool.idleCount == 2)
        pool.checkIn(third)
        _ = try await seventh.wait()
        #expect(pool.inUseCount == 6)
        #expect(pool.createdCount == 8)
    }

    /// With every connection busy a commit gets an extra handle at once, dropped when returned.
    @Test func highNeverWaits() async throws {
        let pool = CurlHandlePool(capacity: 2)
        let first = try await pool.checkOut(url: "http://h/", priority: .normal)
        let second = try await pool.checkOut(url: "http://h/", priority: .normal)
        let waiting = Checkout(pool, .normal)
        #expect(try await Self.eventually { pool.waitingCount(.normal) == 1 })
        let commit = try await pool.checkOut(url: "http://h/", priority: .high)
        #expect(pool.extraCreatedCount == 1)
        #expect(pool.createdCount == 2)
        pool.checkIn(commit)
        #expect(pool.idleCount == 0)
        #expect(!waiting.hasHandle)
        pool.checkIn(first)
        _ = try await waiting.wait()
        pool.checkIn(second)
        #expect(pool.idleCount == 1)
        // A free pooled handle is taken before an extra one is made.
        let reused = try await pool.checkOut(url: "http://h/", priority: .high)
        #expect(pool.extraCreatedCount == 1)
        pool.checkIn(reused)
    }

    @Test func aCancelledWaiterStopsWaitingAndTheNextOneIsServed() async throws {
        let pool = CurlHandlePool(capacity: 1)
        let held = try await pool.checkOut(url: "http://h/", priority: .normal)
        let cancelled = Checkout(pool, .normal)
        let next = Checkout(pool, .normal)
        #expect(try await Self.eventually { pool.waitingCount(.normal) == 2 })
        cancelled.task.cancel()
        #expect(try await Self.eventually { pool.waitingCount(.normal) == 1 })
        pool.checkIn(held)
        _ = try await next.wait()
        await cancelled.task.value
        #expect(!cancelled.hasHandle)
    }
}
