internal import CCurl
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A libcurl multi handle and the dedicated thread that drives it: every easy handle added to it runs on that
/// thread, and HTTP/2 transfers to the same host share one connection (`CURLMOPT_PIPELINING` =
/// `CURLPIPE_MULTIPLEX`, CURLMOPT_PIPELINING(3)).
///
/// The thread loops: take the commands other threads queued, `curl_multi_perform`, collect finished
/// transfers (`curl_multi_info_read`), then `curl_multi_poll` for at most 1 s. Other threads never touch a
/// handle: they queue a command and call `curl_multi_wakeup`, which makes the poll return at once
/// (curl_multi_wakeup(3) may be called from any thread). So a command (a new call, more bytes to send, a
/// cancellation) takes effect within microseconds, and no Swift concurrency thread ever blocks on libcurl.
///
/// The thread ends after ``stop()``: every running transfer is cancelled, then the multi handle is freed.
final class CurlMultiLoop: @unchecked Sendable {
    private enum Command: Sendable {
        case add(GRPCTransfer)
        case resume(Int)
        case cancel(Int, FirestoreError)
        case stop
    }

    private struct Inbox {
        var commands: [Command] = []
        /// Set once the thread has left its loop; the multi handle may be freed, so no more wake-ups.
        var closed = false
    }

    /// The `CURLM *`: used by the loop thread only, except for `curl_multi_wakeup` under the inbox lock while
    /// the inbox is open (the handle is freed only after the loop closes the inbox).
    private let multi: UnsafeMutableRawPointer
    private let inbox = Mutex(Inbox())
    private let connectionsOpened = Atomic<Int>(0)
    private let runningTransfers = Atomic<Int>(0)

    /// Creates the multi handle and starts its thread.
    /// - Parameter name: the thread's name, for debuggers and crash reports.
    /// - Throws: ``FirestoreError`` `.unknown` when libcurl cannot be initialised or allocate a multi handle.
    init(name: String) throws(FirestoreError) {
        try CurlRuntime.initialize()
        guard let multi = curl_multi_init() else {
            throw FirestoreError(code: .unknown, message: "curl_multi_init failed")
        }
        _ = ccurl_multi_setopt_long(multi, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        self.multi = multi
        guard TransferThread.start(name: name, { [self] in run() }) else {
            curl_multi_cleanup(multi)
            throw FirestoreError(code: .unknown, message: "could not start the gRPC channel's thread")
        }
    }

    /// How many new connections the finished and cancelled transfers opened (sum of `CURLINFO_NUM_CONNECTS`).
    var openedConnectionCount: Int { connectionsOpened.load(ordering: .relaxed) }

    /// How many transfers the thread is running.
    var transferCount: Int { runningTransfers.load(ordering: .relaxed) }

    /// Starts `transfer`. If the loop has stopped, the transfer's call ends with `.cancelled`.
    func add(_ transfer: GRPCTransfer) {
        if !submit(.add(transfer)) {
            transfer.state.end(with: FirestoreError(code: .cancelled, message: "the gRPC channel was shut down"))
        }
    }

    /// Asks the thread to unpause call `id` (more bytes to send, or room in its receive buffer).
    func resume(_ id: Int) {
        submit(.resume(id))
    }

    /// Ends call `id` with `error` and frees its handle; nothing when it has already ended.
    func cancel(_ id: Int, error: FirestoreError) {
        submit(.cancel(id, error))
    }

    /// Cancels every transfer and ends the thread.
    func stop() {
        submit(.stop)
    }

    @discardableResult
    private func submit(_ command: Command) -> Bool {
        inbox.withLock { inbox in
            guard !inbox.closed else { return false }
            inbox.commands.append(command)
            _ = curl_multi_wakeup(multi)
            return true
        }
    }

    // MARK: The thread

    private func run() {
        var transfers: [Int: GRPCTransfer] = [:]
        var stopping = false
        while !stopping {
            let commands = inbox.withLock { inbox in
                let commands = inbox.commands
                inbox.commands.removeAll()
                return commands
            }
            for command in commands {
                switch command {
                case .add(let transfer):
                    transfer.chooseCleartextVersion(
                        otherCleartextCallRunning: transfers.values.contains { $0.isCleartext })
                    if curl_multi_add_handle(multi, transfer.easy.raw) == CURLM_OK {
                        transfers[transfer.state.id] = transfer
                    } else {
                        transfer.state.end(
                            with: FirestoreError(code: .unknown, message: "curl_multi_add_handle failed"))
                    }
                case .resume(let id):
                    transfers[id]?.resume()
                case .cancel(let id, let error):
                    if let transfer = transfers.removeValue(forKey: id) {
                        finish(transfer, error: error)
                    }
                case .stop:
                    stopping = true
                }
            }
            runningTransfers.store(transfers.count, ordering: .relaxed)
            if stopping { break }
            var running: Int32 = 0
            _ = curl_multi_perform(multi, &running)
            for (easy, code) in doneTransfers() {
                guard let (id, transfer) = transfers.first(where: { $0.value.easy.raw == easy }) else { continue }
                transfers.removeValue(forKey: id)
                finish(transfer, error: transfer.outcome(for: code))
            }
            runningTransfers.store(transfers.count, ordering: .relaxed)
            _ = curl_multi_poll(multi, nil, 0, 1000, nil)
        }
        let shutDown = FirestoreError(code: .cancelled, message: "the gRPC channel was shut down")
        for transfer in transfers.values {
            finish(transfer, error: shutDown)
        }
        let late = inbox.withLock { inbox in
            inbox.closed = true
            return inbox.commands
        }
        for case .add(let transfer) in late {
            transfer.state.end(with: shutDown)
        }
        runningTransfers.store(0, ordering: .relaxed)
        curl_multi_cleanup(multi)
    }

    /// The transfers libcurl reports finished, with their result codes. Read out completely before any handle
    /// is removed: a `CURLMsg` does not survive `curl_multi_remove_handle` (curl_multi_info_read(3)).
    private func doneTransfers() -> [(UnsafeMutableRawPointer, CURLcode)] {
        var done: [(UnsafeMutableRawPointer, CURLcode)] = []
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(multi, &remaining) {
            if message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle {
                done.append((easy, message.pointee.data.result))
            }
        }
        return done
    }

    /// Ends `transfer`'s call with `error` (or success), counts its connections and detaches its handle.
    private func finish(_ transfer: GRPCTransfer, error: FirestoreError?) {
        let opened = transfer.connectionsOpened
        connectionsOpened.add(opened, ordering: .relaxed)
        _ = curl_multi_remove_handle(multi, transfer.easy.raw)
        transfer.state.end(with: error, trailers: transfer.trailers, connectionsOpened: opened)
    }
}
