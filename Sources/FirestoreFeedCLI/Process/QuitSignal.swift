#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ends the tool on SIGQUIT (Ctrl-\) with exit status 131 (128 + SIGQUIT), as SIGINT (130) and SIGTERM (143)
/// end it by their default action.
///
/// The Swift runtime's backtracer installs a handler for SIGQUIT (it treats it as a crash): it prints
/// "Program crashed" and returns, and the process then waits forever in libdispatch's `sigsuspend`, holding
/// its connections. This handler replaces the backtracer's for SIGQUIT only (crash signals keep their
/// backtraces). A DispatchSource cannot do it: on Linux the main thread waits in `sigsuspend` with every
/// signal unblocked, so the signal reaches a handler, never the source's signalfd.
package enum QuitSignal {
    /// The exit status on SIGQUIT.
    package static let exitStatus: Int32 = 128 + SIGQUIT

    /// Installs the handler (idempotent). `_exit(2)` is async-signal-safe; nothing is left to flush, since every
    /// line is written with write(2) when it is printed.
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
