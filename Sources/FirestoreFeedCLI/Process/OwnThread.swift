import FirestoreREST

/// Blocking work of a command (a credentials file read, an input file read) on a thread of its own
/// (`BlockingExecutor.detached`), never on the cooperative pool.
enum OwnThread {
    /// Runs `work` on a thread named `name` and returns its result.
    static func run<T: Sendable>(_ name: String, _ work: @escaping @Sendable () throws(FirestoreError) -> T)
        async throws(FirestoreError) -> T
    {
        do {
            return try await BlockingExecutor.detached(name: name, work)
        } catch {
            throw FirestoreError(wrapping: error)
        }
    }
}
