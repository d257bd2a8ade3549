import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Notices at once that stdout's reader went away, while the tool has nothing to print: `watch | head -n 2`
/// would otherwise linger until the next change before its write fails.
///
/// A thread of its own waits in poll(2) on stdout with no requested events: the kernel still reports POLLERR
/// on a pipe without readers and POLLHUP on a socket whose peer closed or a terminal that hung up, and reports
/// nothing for a file or `/dev/null` (the thread then waits forever, harmlessly). On either event the process
/// ends as the next write would (``OutputFailure/readerClosed()``). The wait blocks that thread only, never
/// one of the cooperative pool.
package enum StandardOutputWatch {
    private static let started = Mutex(false)

    /// Starts the watch (once per process; later calls do nothing).
    package static func start() {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        guard first else { return }
        let thread = Thread {
            while true {
                var output = pollfd(fd: STDOUT_FILENO, events: 0, revents: 0)
                let ready = poll(&output, 1, -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    return
                }
                if output.revents & Int16(POLLERR | POLLHUP) != 0 { OutputFailure.readerClosed() }
                // POLLNVAL (stdout not open) or an event nobody asked for: nothing left to watch.
                if ready > 0 { return }
            }
        }
        thread.name = "firestore-feed stdout watch"
        thread.start()
    }
}
