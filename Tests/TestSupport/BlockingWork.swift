import Foundation

/// Runs blocking work (a child process, a pipe read) on a thread of its own, so it never occupies one of the
/// few threads of Swift's cooperative pool that every concurrently running test needs (on a 2-core machine a
/// blocked pool thread stalls the timing of unrelated tests).
package enum BlockingWork {
    package static func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread { continuation.resume(with: Result { try work() }) }
            thread.name = "BlockingWork"
            thread.start()
        }
    }
}
