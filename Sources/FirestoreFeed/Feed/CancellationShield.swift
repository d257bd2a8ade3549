/// Runs work that must finish even when the calling task is cancelled (a snapshot's handler, a checkpoint write, a
/// lease release during a graceful stop): in a task of its own, which the caller's cancellation does not reach, and
/// awaits it.
enum CancellationShield {
    /// Runs `work` beyond the caller's cancellation and returns its result.
    /// - Throws: what `work` throws.
    static func run<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) async throws -> T {
        try await Task { try await work() }.value
    }

    /// Runs `work` beyond the caller's cancellation.
    static func run(_ work: @escaping @Sendable () async -> Void) async {
        await Task { await work() }.value
    }
}
