import FirestoreFeed
import FirestoreTesting
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One `GET /events` client of `firestore-feed serve`, after its response head: a task takes the live list's events
/// and hands each to the connection's own thread, which writes it to the socket and only then lets the task take the
/// next. A client that does not read thus leaves its events in the list's bounded buffer (``LiveList``'s
/// `clientBuffer`), where the list cuts it: its stream ends, the thread writes the reason as a comment line
/// (``cutComment``) and closes, and the client's `EventSource` reconnects with its `Last-Event-ID`.
///
/// The thread also polls the socket, so a client that goes away is let go at once (its task cancelled, its place in
/// the list freed), and writes a comment line after every ``heartbeat`` without events, so a proxy keeps an idle
/// stream open.
final class EventStreamConnection: Sendable {
    /// Between two writes on an idle stream.
    static let heartbeat: Duration = .seconds(15)
    /// The comment written on an idle stream.
    static let heartbeatComment = Array(": keep-alive\n\n".utf8)

    private struct State {
        /// The bytes handed over, not yet written.
        var pending: [UInt8]?
        /// The task waiting for `pending` to be written (`true`) or for the client to be gone (`false`).
        var written: CheckedContinuation<Bool, Never>?
        /// The task has nothing more to hand over.
        var ended = false
        /// The thread stopped: nothing more is written, the wake pipe is closed.
        var closed = false
        var feeder: Task<Void, Never>?
    }

    private let socket: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let state = Mutex(State())

    private init(socket: Int32, wakeRead: Int32, wakeWrite: Int32) {
        self.socket = socket
        self.wakeRead = wakeRead
        self.wakeWrite = wakeWrite
    }

    /// The comment a client cut for falling more than `clientBuffer` events behind reads before the stream closes.
    static func cutComment(clientBuffer: Int) -> [UInt8] {
        Array(
            (": cut: this client fell more than \(clientBuffer) events behind; reconnect with Last-Event-ID to get "
                + "the events missed\n\n").utf8)
    }

    /// Streams `list`'s events after `lastEventID` (see ``LiveList/events(lastEventID:)``) to `socket` until the
    /// client goes away or is cut (then `onCut` is called). On the connection's own thread, which it blocks.
    static func serve(
        _ list: LiveList, lastEventID: String?, on socket: Int32, clientBuffer: Int,
        onCut: @escaping @Sendable () -> Void
    ) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return }
        _ = fcntl(ends[1], F_SETFL, fcntl(ends[1], F_GETFL) | O_NONBLOCK)
        let connection = EventStreamConnection(socket: socket, wakeRead: ends[0], wakeWrite: ends[1])
        let cut = cutComment(clientBuffer: clientBuffer)
        let feeder = Task {
            for await event in list.events(lastEventID: lastEventID) {
                guard await connection.hand(Array(event.serverSentEvent.utf8)) else { return }
            }
            // The stream ended while the client was there: the list cut it.
            if !Task.isCancelled {
                onCut()
                _ = await connection.hand(cut)
            }
            connection.end()
        }
        connection.state.withLock { $0.feeder = feeder }
        connection.writeUntilGone()
        let (waiting, task) = connection.state.withLock { state in
            state.closed = true
            defer { state.written = nil }
            return (state.written, state.feeder)
        }
        waiting?.resume(returning: false)
        task?.cancel()
        close(ends[0])
        close(ends[1])
    }

    /// Hands `bytes` to the thread and waits until they are written: `false` when the client is gone.
    private func hand(_ bytes: [UInt8]) async -> Bool {
        await withCheckedContinuation { continuation in
            let handed = state.withLock { state -> Bool in
                guard !state.closed else { return false }
                state.pending = bytes
                state.written = continuation
                wakeThread()
                return true
            }
            if !handed { continuation.resume(returning: false) }
        }
    }

    /// The task has nothing more to hand over: the thread closes the stream.
    private func end() {
        state.withLock { state in
            guard !state.closed else { return }
            state.ended = true
            wakeThread()
        }
    }

    /// One byte on the wake pipe (under the state's lock, while the pipe is open).
    private func wakeThread() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    /// Writes what the task hands over, and heartbeats, until the client goes away, a write fails, or the task ends.
    private func writeUntilGone() {
        var ready = [
            pollfd(fd: socket, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        var scratch = [UInt8](repeating: 0, count: 4096)
        let heartbeat = Int32(Self.heartbeat.components.seconds * 1000)
        while true {
            ready[0].revents = 0
            ready[1].revents = 0
            let count = poll(&ready, 2, heartbeat)
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            if count == 0 {
                guard HTTPSocket.write(socket, Self.heartbeatComment) else { return }
                continue
            }
            if ready[0].revents != 0 {
                // A client of an event stream sends nothing more: what it sends is dropped; its end ends the stream.
                let received = scratch.withUnsafeMutableBytes {
                    recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
                }
                if received == 0 || (received < 0 && errno != EAGAIN && errno != EINTR) { return }
            }
            if ready[1].revents != 0 {
                _ = scratch.withUnsafeMutableBytes { read(wakeRead, $0.baseAddress, 1) }
                let (bytes, waiting, ended) = state.withLock { state in
                    defer {
                        state.pending = nil
                        state.written = nil
                    }
                    return (state.pending, state.written, state.ended)
                }
                if let bytes {
                    let written = HTTPSocket.write(socket, bytes)
                    waiting?.resume(returning: written)
                    guard written else { return }
                }
                if ended { return }
            }
        }
    }
}
