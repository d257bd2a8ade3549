import FirestoreREST

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The write end of ``TerminateSignal``'s pipe, for the signal handler (which can capture nothing).
nonisolated(unsafe) private var terminatePipeWriteEnd: Int32 = -1
/// The read end of the pipe ``TerminateSignal/install(interrupt:)`` made and no ``TerminateSignal/wait(interrupt:)``
/// took yet, or -1.
nonisolated(unsafe) private var terminatePipePendingReadEnd: Int32 = -1

/// SIGTERM as an event a command can await, for the commands that end gracefully on it (`watch --group`: release
/// the leases, exit 0). The handler only writes one byte to a pipe (`write(2)` is async-signal-safe); a thread of
/// its own (``OwnThread``) waits for the byte, never the cooperative pool. Commands that do not install it keep
/// SIGTERM's default action (exit 143).
enum TerminateSignal {
    /// Installs the handler and returns once SIGTERM arrives (or SIGINT, with `interrupt`: `mirror` ends the same
    /// way on Ctrl-C), with the signal's number; `nil` when the pipe cannot be made (the signals then keep their
    /// default action).
    static func wait(interrupt: Bool = false) async -> Int32? {
        guard install(interrupt: interrupt) else { return nil }
        // Each wait reads a pipe of its own while an earlier wait's thread may still block on the one before (a wait
        // cancelled before its signal came): the handler writes to the newest.
        let readEnd = terminatePipePendingReadEnd
        terminatePipePendingReadEnd = -1
        let arrived = try? await OwnThread.run("firestore-feed SIGTERM") {
            // Delivered to this thread at least: a watch started with SIGTERM blocked (a mask inherited from the
            // thread that spawned it) would otherwise never see it.
            var terminate = sigset_t()
            sigemptyset(&terminate)
            sigaddset(&terminate, SIGTERM)
            if interrupt { sigaddset(&terminate, SIGINT) }
            pthread_sigmask(SIG_UNBLOCK, &terminate, nil)
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 { return Int32(byte) }
                if count < 0, errno == EINTR { continue }
                return nil
            }
        }
        guard let signal = arrived ?? nil else { return nil }
        // This pipe's reader is done: the next wait reads on here, so a second signal sent right after the first (its
        // byte already in this pipe) is not lost to a new pipe.
        if terminatePipePendingReadEnd < 0 { terminatePipePendingReadEnd = readEnd }
        return signal
    }

    /// Installs the handler now, writing to a new pipe unless one made by an earlier call is not taken yet: a command
    /// that tells it is ready (`serve` prints its URL) calls it first, so that a SIGTERM right after is the graceful
    /// end, not the default action; the next ``wait(interrupt:)`` reads that pipe, and finds the SIGTERM that came
    /// before it. Call it from one task at a time. Returns `false` when the pipe cannot be made.
    @discardableResult
    static func install(interrupt: Bool = false) -> Bool {
        if terminatePipePendingReadEnd < 0 {
            var ends: [Int32] = [-1, -1]
            guard pipe(&ends) == 0 else { return false }
            terminatePipeWriteEnd = ends[1]
            terminatePipePendingReadEnd = ends[0]
        }
        var action = sigaction()
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { signal in
                var byte = UInt8(truncatingIfNeeded: signal)
                _ = write(terminatePipeWriteEnd, &byte, 1)
            }
        #else
            action.__sigaction_u.__sa_handler = { signal in
                var byte = UInt8(truncatingIfNeeded: signal)
                _ = write(terminatePipeWriteEnd, &byte, 1)
            }
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        _ = sigaction(SIGTERM, &action, nil)
        if interrupt { _ = sigaction(SIGINT, &action, nil) }
        return true
    }
}

extension TerminateSignal {
    /// Ends the process now with `status`, after writing `line` straight to stderr if stderr takes it within 100 ms:
    /// not through ``Console``, whose writer may be stuck on a reader that stopped reading (the very case a second
    /// signal is for), and with `_exit`, which flushes nothing that could block.
    static func stopAtOnce(_ line: String, status: Int32) -> Never {
        var descriptor = pollfd(fd: STDERR_FILENO, events: Int16(POLLOUT), revents: 0)
        if poll(&descriptor, 1, 100) == 1, descriptor.revents & Int16(POLLOUT) != 0 {
            let bytes = Array(line.utf8)
            _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
        }
        _exit(status)
    }

    /// Runs `body` until it returns or SIGTERM arrives; on SIGTERM `body`'s task is cancelled (a feed stream ends
    /// at its next wait) and this returns normally, so the watch exits 0. With `interrupt`, SIGINT does the same.
    /// What `body` finishes before it ends (a publish of the snapshot in hand, retried while Pub/Sub fails; a batch
    /// a sink applies) may take a while (after a second, a line on stderr says the process is waiting for it): a
    /// second SIGTERM or SIGINT meanwhile ends the process at once, saying so,
    /// with status 128 + the signal (what the signal's default action would give), the work in hand not acknowledged:
    /// the next run delivers it again from the last checkpoint.
    static func untilTerminated(
        interrupt: Bool = false, _ body: @escaping @Sendable () async throws -> Void
    ) async throws {
        let work = Task { try await body() }
        let terminated = Task {
            guard let first = await TerminateSignal.wait(interrupt: interrupt) else { return }
            work.cancel()
            let name = first == SIGINT ? "SIGINT" : "SIGTERM"
            // Said when the work in hand outlasts a second (a cancelled feed ends at once, so a watch says nothing).
            async let _: Void = {
                try? await Task.sleep(for: .seconds(1))
                guard !Task.isCancelled else { return }
                Console.error(
                    "firestore-feed: \(name): stopping once the work in hand is done (a second \(name) stops at once)")
            }()
            // Once the work has ended (this task cancelled), a signal is no longer a second one: the command is
            // finishing (leaving its group, exiting 0) and the signal is ignored.
            guard let again = await TerminateSignal.wait(interrupt: interrupt), !Task.isCancelled else { return }
            stopAtOnce(
                "firestore-feed: a second \(again == SIGINT ? "SIGINT" : "SIGTERM") before the work in hand was done: "
                    + "stopped at once, that work not acknowledged (the next run delivers it again from the last "
                    + "checkpoint)\n",
                status: 128 + again)
        }
        defer { terminated.cancel() }
        do {
            // Cancelling the caller (`--max-failures` giving up) cancels the work too.
            try await withTaskCancellationHandler {
                try await work.value
            } onCancel: {
                work.cancel()
            }
        } catch {
            // The work cancelled by SIGTERM (not by the caller): a cancellation is the graceful end, anything else
            // still fails.
            if work.isCancelled, !Task.isCancelled,
                error is CancellationError || (error as? FirestoreError)?.code == .cancelled
            {
                return
            }
            throw error
        }
    }
}
