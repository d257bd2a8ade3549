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
    /// The exit status, once the process has ended; awaited on the process's one reaping thread
    /// (``ProcessReaper``). After `timeout` seconds the process is ended (``end(grace:)``), so this always returns.
    package func exitStatus(timeout: Double) async -> Int32 {
        let watchdog = DispatchWorkItem { [self] in end() }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let status = await ProcessReaper.shared.status(of: self)
        watchdog.cancel()
        return status
    }

    /// Ends the process without waiting: SIGTERM now, SIGKILL if it still runs `grace` seconds later, and its
    /// exit collected by its reaping thread. Safe to call from `defer` in async code, and more than once.
    package func end(grace: Double = 5) {
        guard isRunning else {
            ProcessReaper.shared.reap(self)
            return
        }
        let pid = processIdentifier
        kill(pid, SIGTERM)
        DispatchQueue.global().asyncAfter(deadline: .now() + grace) { [self] in
            if isRunning { kill(pid, SIGKILL) }
        }
        ProcessReaper.shared.reap(self)
    }
}

/// One thread per child process calls Foundation's `waitUntilExit` (which runs the end-of-process work on that
/// thread's run loop; without it the Process and its pipes stay allocated), once, and hands the status to every
/// caller. Two threads in `waitUntilExit` of one Process race on its run-loop source: a test process crashed in
/// `Process.terminateRunLoop()` (`_swift_release_dealloc`, a bad pointer) when a test's `exitStatus` and an
/// `end()` both waited.
///
/// Each entry keeps its Process for the test process's life (a few hundred small objects), so that no later
/// Process can reuse its address and be taken for one already reaped.
package final class ProcessReaper: @unchecked Sendable {
    package static let shared = ProcessReaper()

    private final class Entry: @unchecked Sendable {  // status and waiters under the reaper's lock
        let process: Process
        var status: Int32?
        var waiters: [CheckedContinuation<Int32, Never>] = []
        init(_ process: Process) { self.process = process }
    }

    private let lock = NSLock()
    private var entries: [ObjectIdentifier: Entry] = [:]

    /// Starts `process`'s reaping thread, unless it was started before.
    package func reap(_ process: Process) {
        _ = entry(for: process)
    }

    /// `process`'s exit status, once it has ended.
    package func status(of process: Process) async -> Int32 {
        let entry = entry(for: process)
        return await withCheckedContinuation { continuation in
            let done: Int32? = lock.withLock {
                if let status = entry.status { return status }
                entry.waiters.append(continuation)
                return nil
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    private func entry(for process: Process) -> Entry {
        let (entry, isNew) = lock.withLock { () -> (Entry, Bool) in
            if let entry = entries[ObjectIdentifier(process)] { return (entry, false) }
            let entry = Entry(process)
            entries[ObjectIdentifier(process)] = entry
            return (entry, true)
        }
        if isNew {
            let thread = Thread { [self] in
                entry.process.waitUntilExit()
                let status = entry.process.terminationStatus
                let waiters = lock.withLock { () -> [CheckedContinuation<Int32, Never>] in
                    entry.status = status
                    defer { entry.waiters = [] }
                    return entry.waiters
                }
                for waiter in waiters { waiter.resume(returning: status) }
            }
            thread.name = "ChildProcess.reap"
            thread.start()
        }
        return entry
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
