import Foundation

/// Runs blocking work (reading a file or standard input, loading a credentials file) on a thread of its own and
/// awaits it, so no thread of Swift's cooperative pool (one per core) waits on the disk.
enum OwnThread {
    /// The result of `work`, run on a new thread named `name`.
    static func run<T: Sendable, E: Error>(_ name: String, _ work: @escaping @Sendable () throws(E) -> T)
        async throws(E) -> T
    {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { () throws(E) -> T in try work() })
            }
            thread.name = name
            thread.start()
        }
        return try result.get()
    }
}
