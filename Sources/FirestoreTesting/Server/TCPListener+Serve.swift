import FirestoreREST
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension TCPListener {
    /// Accepts connections until the process ends, serving each with `serve` on a thread of its own named
    /// `threadName`, at most `maxConnections` at once: one more goes to `refuse` on the accepting thread (which must
    /// not wait for the client). Each admitted connection gets a send timeout of `sendTimeoutMilliseconds`, and is
    /// closed after `serve` returns; a connection the system has no thread for is closed as one over the limit.
    /// Blocks: call it on a thread of its own, never from a task.
    package func serveConnections(
        maxConnections: Int, sendTimeoutMilliseconds: Int, threadName: String, refuse: (Int32) -> Void,
        serve: @escaping @Sendable (Int32) -> Void
    ) -> Never {
        let open = OpenConnections()
        while true {
            let connection = accept()
            guard open.admit(below: maxConnections) else {
                refuse(connection)
                continue
            }
            var timeout = timeval(
                tv_sec: sendTimeoutMilliseconds / 1000, tv_usec: Int(sendTimeoutMilliseconds % 1000) * 1000)
            setsockopt(connection, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let started = TransferThread.start(name: threadName) {
                serve(connection)
                close(connection)
                open.release()
            }
            if !started {
                close(connection)
                open.release()
            }
        }
    }
}

/// The connections being served: admitted under a cap, released when done.
private final class OpenConnections: Sendable {
    private let count = Mutex(0)

    func admit(below cap: Int) -> Bool {
        count.withLock { count in
            guard count < cap else { return false }
            count += 1
            return true
        }
    }

    func release() { count.withLock { $0 -= 1 } }
}
