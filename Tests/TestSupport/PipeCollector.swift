import Foundation

/// Everything a child process writes to one pipe, read from the start on a thread of its own (a blocking read
/// on the cooperative pool would stall every other test), and observable while the process still runs.
package final class PipeCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var bytes = Data()
    private var ended = false
    private var waiters: [CheckedContinuation<Data, Never>] = []

    package init(_ handle: FileHandle) {
        let thread = Thread { [self] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                lock.withLock { bytes.append(chunk) }
            }
            let (all, waiting) = lock.withLock { () -> (Data, [CheckedContinuation<Data, Never>]) in
                ended = true
                defer { waiters = [] }
                return (bytes, waiters)
            }
            for waiter in waiting { waiter.resume(returning: all) }
        }
        thread.name = "PipeCollector"
        thread.start()
    }

    /// Whether the pipe reached end of file (the writer exited or closed it).
    package var isEnded: Bool { lock.withLock { ended } }

    /// What has arrived so far.
    package var data: Data { lock.withLock { bytes } }

    /// The complete lines that have arrived so far.
    package var lines: [String] {
        let text = String(decoding: data, as: UTF8.self)
        let parts = text.split(separator: "\n", omittingEmptySubsequences: false)
        return parts.dropLast().map(String.init)  // the last part is unterminated (or empty)
    }

    /// Everything, once the pipe reached end of file (the writer exited or closed it).
    package func all() async -> Data {
        await withCheckedContinuation { continuation in
            let done: Data? = lock.withLock {
                if ended { return bytes }
                waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    /// Waits until `count` complete lines have arrived, for up to `timeout` seconds; returns the lines there are.
    package func lines(atLeast count: Int, timeout: Double) async -> [String] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while lines.count < count, ContinuousClock.now < deadline, !lock.withLock({ ended }) {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return lines
    }
}
