#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ends the tool on SIGQUIT (Ctrl-\) with exit status 131 (128 + SIGQUIT), as SIGINT (130) and SIGTERM (143)
/// end it by their default action.
///
/// The Swift runtime's backtracer installs a handler for SIGQUIT along with the crash signals, and after it the
/// process never ended: it stayed in libdispatch's `sigsuspend`, holding its connections, until killed. This
/// handler replaces the backtracer's for SIGQUIT only (crash signals keep their backtraces). A DispatchSource
/// cannot do it: on Linux the main thread waits in `sigsuspend` with every signal unblocked, so the signal
/// reaches a handler, never the source's signalfd. Checked by `CLIQuitSignalTests.aWatchEndsOnTheSignal`.
package enum QuitSignal {
    /// Installs the handler (idempotent). It only calls `_exit(2)`, which is async-signal-safe; a line still
    /// waiting for the writer thread is lost, as with SIGINT's default action.
    package static func install() {
        var action = sigaction()
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { _ in _exit(128 + SIGQUIT) }
        #else
            action.__sigaction_u.__sa_handler = { _ in _exit(128 + SIGQUIT) }
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        _ = sigaction(SIGQUIT, &action, nil)
    }
}
