import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST

/// Transactions of one client take turns on the documents they touch (``TransactionLocks``, issue 19).
@Suite(.timeLimit(.minutes(2))) struct TransactionLocksTests {
    final class Owner: Sendable {}

    /// Runs `acquire` in a task of its own and records its answer.
    final class Acquisition: Sendable {
        final class Slot: Sendable {
            let answer = Mutex<Bool?>(nil)
        }

        let slot = Slot()
        let task: Task<Void, Never>

        init(_ locks: TransactionLocks, _ names: [String], _ owner: Owner) {
            let slot = self.slot
            let id = ObjectIdentifier(owner)
            task = Task {
                let got = await locks.acquire(names, for: id)
                slot.answer.withLock { $0 = got }
            }
        }

        var result: Bool? { slot.answer.withLock { $0 } }
    }

    /// Polls `condition` every 10 ms for at least 30 s (a guard against a hang, never a measure of speed).
    static func eventually(_ condition: () -> Bool) async throws -> Bool {
        for _ in 0..<3000 {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    /// Waits until `count` requests wait for documents: an ``Acquisition``'s task registers its wait when it gets
    /// to run, which no sleep makes certain on a loaded machine.
    static func waitForWaiters(_ count: Int, _ locks: TransactionLocks) async throws -> Bool {
        try await eventually { locks.waiterCount == count }
    }

    @Test func secondOwnerWaitsUntilTheFirstReleases() async throws {
        let locks = TransactionLocks()
        let (first, second) = (Owner(), Owner())
        #expect(await locks.acquire(["c/d"], for: ObjectIdentifier(first)))
        // The holder itself never waits again for what it holds.
        #expect(await locks.acquire(["c/d"], for: ObjectIdentifier(first)))
        let waiting = Acquisition(locks, ["c/d", "c/e"], second)
        try #require(try await Self.waitForWaiters(1, locks))
        #expect(waiting.result == nil)
        locks.release(ObjectIdentifier(first))
        #expect(try await Self.eventually { waiting.result == true })
        #expect(locks.heldCount == 2)
        #expect(locks.waiterCount == 0)
        locks.release(ObjectIdentifier(second))
        #expect(locks.heldCount == 0)
    }

    @Test func waitersAreServedInOrderAndDisjointOnesPass() async throws {
        let locks = TransactionLocks()
        let (holder, early, late, other) = (Owner(), Owner(), Owner(), Owner())
        #expect(await locks.acquire(["a"], for: ObjectIdentifier(holder)))
        // Each waiter is registered before the next one starts, so they queue in this order.
        let first = Acquisition(locks, ["a"], early)
        try #require(try await Self.waitForWaiters(1, locks))
        let second = Acquisition(locks, ["a"], late)
        try #require(try await Self.waitForWaiters(2, locks))
        // A request for other documents passes the queue.
        #expect(await locks.acquire(["b"], for: ObjectIdentifier(other)))
        locks.release(ObjectIdentifier(holder))
        #expect(try await Self.eventually { first.result == true })
        #expect(second.result == nil)
        #expect(locks.waiterCount == 1)
        locks.release(ObjectIdentifier(early))
        #expect(try await Self.eventually { second.result == true })
    }

    /// Two owners each holding what the other wants: the first waits, the second would close the cycle and goes
    /// on at once without; when it ends the first gets its document.
    @Test func aWaitThatWouldCloseACycleDoesNotWait() async throws {
        let locks = TransactionLocks()
        let (one, two) = (Owner(), Owner())
        #expect(await locks.acquire(["a"], for: ObjectIdentifier(one)))
        #expect(await locks.acquire(["b"], for: ObjectIdentifier(two)))
        let oneWants = Acquisition(locks, ["b"], one)
        try #require(try await Self.waitForWaiters(1, locks))
        #expect(await locks.acquire(["a"], for: ObjectIdentifier(two)) == false)
        #expect(oneWants.result == nil)
        #expect(locks.waiterCount == 1)
        locks.release(ObjectIdentifier(two))
        #expect(try await Self.eventually { oneWants.result == true })
        locks.release(ObjectIdentifier(one))
        #expect(locks.heldCount == 0)
    }

    /// A cycle through a third owner's wait is found too.
    @Test func aCycleThroughAnotherWaiterIsFound() async throws {
        let locks = TransactionLocks()
        let (one, two, three) = (Owner(), Owner(), Owner())
        #expect(await locks.acquire(["a"], for: ObjectIdentifier(one)))
        #expect(await locks.acquire(["b"], for: ObjectIdentifier(two)))
        #expect(await locks.acquire(["c"], for: ObjectIdentifier(three)))
        let oneWants = Acquisition(locks, ["b"], one)
        let twoWants = Acquisition(locks, ["c"], two)
        try #require(try await Self.waitForWaiters(2, locks))
        #expect(await locks.acquire(["a"], for: ObjectIdentifier(three)) == false)
        locks.release(ObjectIdentifier(three))
        #expect(try await Self.eventually { twoWants.result == true })
        locks.release(ObjectIdentifier(two))
        #expect(try await Self.eventually { oneWants.result == true })
        locks.release(ObjectIdentifier(one))
        #expect(locks.heldCount == 0)
    }

    /// The backstop: a holder that never ends makes a waiter wait at most `maximumWait`.
    @Test func aWaitEndsAfterTheMaximum() async throws {
        let locks = TransactionLocks(maximumWait: .milliseconds(200))
        let (holder, waiter) = (Owner(), Owner())
        #expect(await locks.acquire(["a"], for: ObjectIdentifier(holder)))
        let waiting = Acquisition(locks, ["a"], waiter)
        #expect(try await Self.eventually { waiting.result == false })
        locks.release(ObjectIdentifier(holder))
        #expect(locks.heldCount == 0)
    }

    @Test func aCancelledWaitEndsAtOnce() async throws {
        let locks = TransactionLocks()
        let (holder, waiter) = (Owner(), Owner())
        #expect(await locks.acquire(["a"], for: ObjectIdentifier(holder)))
        let waiting = Acquisition(locks, ["a"], waiter)
        try #require(try await Self.waitForWaiters(1, locks))
        waiting.task.cancel()
        #expect(try await Self.eventually { waiting.result == false })
        #expect(locks.waiterCount == 0)
        locks.release(ObjectIdentifier(holder))
        #expect(locks.heldCount == 0)
    }
}
