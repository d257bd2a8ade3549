import FirestoreREST
import Foundation
import Synchronization

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
package final class ConsoleWriter: Sendable {
    /// A standard stream.
    package enum Stream: Sendable {
        case output, error
        var descriptor: Int32 { self == .output ? STDOUT_FILENO : STDERR_FILENO }
    }

    private struct Counts {
        /// Lines posted without waiting that are not written yet.
        var posted = 0
        /// Posted lines dropped since the last note.
        var dropped = 0
    }

    /// The process's writer.
    package static let shared = ConsoleWriter()

    /// Lines posted without waiting (feed events from a callback) that may wait at once; more are dropped and
    /// counted, so an unread stderr costs bounded memory.
    package static let postedLimit = 256

    private let counts = Mutex(Counts())
    /// One line at a time, in the order handed over, on a thread of its own (``BlockingExecutor``).
    private let executor = BlockingExecutor(name: "firestore-feed output", onThreadStart: ConsoleWriter.unblockSIGPIPE)

    private init() {}

    /// Writes `bytes` to `stream` and returns once they are written.
    package func write(_ bytes: [UInt8], to stream: Stream) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            executor.submit {
                Self.emit(bytes, to: stream)
                continuation.resume()
            } refused: {
                continuation.resume()
            }
        }
    }

    /// Hands `bytes` to the writer without waiting (for callbacks that must not suspend). Past
    /// ``postedLimit`` lines still waiting, the line is dropped and counted; the count is reported on stderr
    /// once the writer catches up.
    package func post(_ bytes: [UInt8], to stream: Stream) {
        let accepted = counts.withLock { counts -> Bool in
            guard counts.posted < Self.postedLimit else {
                counts.dropped += 1
                return false
            }
            counts.posted += 1
            return true
        }
        guard accepted else { return }
        executor.submit { [self] in
            Self.emit(bytes, to: stream)
            let dropped = counts.withLock { counts -> Int in
                counts.posted -= 1
                guard counts.posted == 0 else { return 0 }
                defer { counts.dropped = 0 }
                return counts.dropped
            }
            if dropped > 0 {
                let note = "note: \(dropped) warning line\(dropped == 1 ? "" : "s") dropped (stderr not read)\n"
                _ = Self.writeAll(Array(note.utf8), to: STDERR_FILENO)
            }
        }
    }

    /// Returns once everything handed to the writer before this call is written.
    package func drain() async {
        await write([], to: .error)
    }

    /// Writes `bytes`; a failed write to stdout ends the process, one to stderr is dropped.
    private static func emit(_ bytes: [UInt8], to stream: Stream) {
        if let failure = writeAll(bytes, to: stream.descriptor), stream == .output {
            OutputFailure.stdoutFailed(failure)
        }
    }

    /// A write into a pipe its reader closed raises SIGPIPE in the writing thread: unblocked on the writer's threads
    /// (a thread created from a libdispatch worker inherits its mask), so the default action ends the process as it
    /// would any tool, and an ignored SIGPIPE turns into EPIPE.
    private static let unblockSIGPIPE: @Sendable () -> Void = {
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_UNBLOCK, &pipeSignal, nil)
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
