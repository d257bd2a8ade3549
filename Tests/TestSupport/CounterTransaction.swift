import FirestoreREST
import Synchronization

/// A counter incremented in transactions, for the contention and fault tests: `counters/c.n`.
package enum CounterTransaction {
    /// Counts transaction closure runs across tasks.
    package final class Attempts: Sendable {
        /// Closure runs so far.
        package let count = Mutex(0)
        package init() {}
    }

    /// Increments `counters/c.n` by one in a transaction of at most `maxAttempts` attempts, counting each run of
    /// its closure in `attempts`. Throws what `runTransaction` throws, or `internal` when the counter holds no
    /// integer.
    package static func increment(_ db: Firestore, attempts: Attempts, maxAttempts: Int = 5) async throws {
        let counter = db.document("counters/c")
        try await db.runTransaction(maxAttempts: maxAttempts) { transaction in
            attempts.count.withLock { $0 += 1 }
            let snapshot = try await transaction.getDocument(counter)
            guard case .integer(let value)? = snapshot.get("n") else {
                throw FirestoreError(code: .internal, message: "counter holds \(String(describing: snapshot.data()))")
            }
            try transaction.updateData(["n": .integer(value + 1)], forDocument: counter)
        }
    }
}
