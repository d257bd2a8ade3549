import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Waiting for and ending the child processes tests start, without ever blocking a thread of Swift's
/// cooperative pool (two threads on a two-core machine: one blocked `waitUntilExit` there stalls every test).
///
/// A child is always ended: ``Foundation/Process/end(grace:)`` sends SIGTERM and, if the child is still running
/// `grace` seconds later, SIGKILL; the exit is collected on a thread of its own. `Scripts/test` reaps whatever a
/// crashed test process left behind.
extension Process {
    /// The exit status, once the process has ended; awaited on a thread of its own. After `timeout` seconds the
    /// process is ended (``end(grace:)``), so this always returns.
    package func exitStatus(timeout: Double) async -> Int32 {
        let watchdog = DispatchWorkItem { [self] in end() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let thread = Thread { [self] in
                // A thread of its own: waitUntilExit runs Foundation's end-of-process work on this thread's run
                // loop (without it the Process and its pipes stay allocated), and may block until the exit.
                waitUntilExit()
                continuation.resume(returning: terminationStatus)
            }
            thread.name = "ChildProcess.exitStatus"
            thread.start()
        }
        watchdog.cancel()
        return status
    }

    /// Ends the process without waiting: SIGTERM now, SIGKILL if it still runs `grace` seconds later, and its
    /// exit collected on a thread of its own. Safe to call from `defer` in async code, and more than once.
    package func end(grace: Double = 5) {
        guard isRunning else {
            reapInBackground()
            return
        }
        let pid = processIdentifier
        kill(pid, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in
            if isRunning { kill(pid, SIGKILL) }
        }
        reapInBackground()
    }

    private func reapInBackground() {
        let thread = Thread { [self] in waitUntilExit() }
        thread.name = "ChildProcess.reap"
        thread.start()
    }
}

/// Python source for loopback servers started by tests: a daemon thread that ends the server when its parent
/// (the test process) is gone — its stdin reaches end of file, or it is re-parented — so no server outlives a
/// test process that crashed or was killed.
package enum ParentWatch {
    package static let python = """
        def _watch_parent():
            import os, sys, threading, time
            parent = os.getppid()
            def on_eof():
                sys.stdin.read()
                os._exit(0)
            def on_reparent():
                while os.getppid() == parent:
                    time.sleep(0.25)
                os._exit(0)
            threading.Thread(target=on_eof, daemon=True).start()
            threading.Thread(target=on_reparent, daemon=True).start()
        """
}
