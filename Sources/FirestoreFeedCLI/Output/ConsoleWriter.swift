import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The one thread that writes the tool's stdout and stderr, in the order the lines were handed to it.
///
/// A write to a pipe nobody reads blocks until the reader catches up, so it never runs on a thread of Swift's
/// cooperative pool (two threads on a two-core machine): ``write(_:to:)`` suspends the caller until this thread
/// has written the line, which also keeps a slow reader's backlog bounded to one line per caller.
///
/// A failed write to stdout ends the process (``OutputFailure/stdoutFailed(_:)``: never a trap); a failed write
/// to stderr drops that line and goes on, since stderr is where failures would be reported.
package final class ConsoleWriter: @unchecked Sendable {
    /// A standard stream.
    package enum Stream: Sendable {
        case output, error
        var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }
    }

    private struct Item {
        var bytes: [UInt8]
        var stream: Stream
        var done: CheckedContinuation<Void, Never>?
    }

    /// The process's writer.
    package static let shared = ConsoleWriter()

    /// Lines posted without waiting (feed events from a callback) that may wait at once; more are dropped and
    /// counted, so an unread stderr costs bounded memory.
    package static let postedLimit = 256

    private let condition = NSCondition()
    private var queue: [Item] = []
    private var posted = 0
    private var dropped = 0
    private var thread: Thread?

    private init() {}

    /// Writes `bytes` to `stream` and returns once they are written.
    package func write(_ bytes: [UInt8], to stream: Stream) async {
        await withCheckedContinuation { continuation in
            enqueue(Item(bytes: bytes, stream: stream, done: continuation))
        }
    }

    /// Hands `bytes` to the writer without waiting (for callbacks that must not suspend). Past
    /// ``postedLimit`` lines still waiting, the line is dropped and counted; the count is reported on stderr
    /// once the writer catches up.
    package func post(_ bytes: [UInt8], to stream: Stream) {
        condition.lock()
        defer { condition.unlock() }
        guard posted < Self.postedLimit else {
            dropped += 1
            return
        }
        posted += 1
        startIfNeeded()
        queue.append(Item(bytes: bytes, stream: stream, done: nil))
        condition.signal()
    }

    /// Returns once everything handed to the writer before this call is written.
    package func drain() async {
        await write([], to: .error)
    }

    private func enqueue(_ item: Item) {
        condition.lock()
        defer { condition.unlock() }
        startIfNeeded()
        queue.append(item)
        condition.signal()
    }

    /// Starts the writer thread; the caller holds the lock.
    private func startIfNeeded() {
        guard thread == nil else { return }
        let thread = Thread { [self] in run() }
        thread.name = "firestore-feed output"
        self.thread = thread
        thread.start()
    }

    /// The writer thread: waits for lines (blocking this thread only) and writes them in order.
    private func run() {
        // A write into a pipe its reader closed raises SIGPIPE in the writing thread: unblocked here (a thread
        // created from a libdispatch worker inherits its mask), so the default action ends the process as it
        // would any tool, and an ignored SIGPIPE turns into EPIPE.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &pipeSignal, nil)
        while true {
            condition.lock()
            // Blocks the writer thread (a Thread of its own, never the cooperative pool's) until a line comes.
            while queue.isEmpty { condition.wait() }
            let item = queue.removeFirst()
            if item.done == nil { posted -= 1 }
            let droppedNow = posted == 0 ? dropped : 0
            if droppedNow > 0 { dropped = 0 }
            condition.unlock()

            if let failure = Self.writeAll(item.bytes, to: item.stream.descriptor), item.stream == .output {
                OutputFailure.stdoutFailed(failure)
            }
            if droppedNow > 0 {
                let note = "note: \(droppedNow) warning line\(droppedNow == 1 ? "" : "s") dropped (stderr not read)\n"
                _ = Self.writeAll(Array(note.utf8), to: STDERR_FILENO)
            }
            item.done?.resume()
        }
    }

    /// Writes every byte of `bytes` to `descriptor` (retrying interrupted and partial writes, and waiting for a
    /// non-blocking descriptor to take more); returns the `errno` of a failure, or `nil`.
    /// Blocks the calling thread while the reader is slow: call it on the writer thread only.
    package static func writeAll(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { buffer -> Int32? in
            var offset = 0
            while offset < buffer.count {
                let written = systemWrite(descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
                if written >= 0 {
                    offset += written
                    continue
                }
                switch errno {
                case EINTR: continue
                case EAGAIN, EWOULDBLOCK:
                    var ready = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                    _ = poll(&ready, 1, -1)
                default: return errno
                }
            }
            return nil
        }
    }
}

/// write(2), under a name the writer's own `write(_:to:)` does not shadow.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}
