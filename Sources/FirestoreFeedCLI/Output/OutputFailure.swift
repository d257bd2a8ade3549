#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How the tool ends when its output goes away: with an exit status, never a trap.
///
/// | what happened | how the tool ends |
/// |---|---|
/// | the reader of a stdout pipe went away (`query ... \| head -n 2`), SIGPIPE at its default | killed by SIGPIPE (a shell shows 141), as any tool |
/// | the same with SIGPIPE ignored (systemd's default for services): the write fails with EPIPE | exit 1, quietly |
/// | any other failed write to stdout: a closed stdout (`>&-`: EBADF), a full disk (ENOSPC), EIO | `error: cannot write to stdout: ...` on stderr, exit 1 |
///
/// Both functions end the process with `_exit(2)`: they run on the writer thread or the stdout watch while
/// the command's task may be exiting too (two concurrent `exit(3)` calls are undefined behaviour), and nothing
/// is lost, since every line is written with write(2) when it is printed, never buffered.
package enum OutputFailure {
    /// A write to stdout failed with `code` (an `errno` value).
    package static func stdoutFailed(_ code: Int32) -> Never {
        if code != EPIPE {
            let message = "error: cannot write to stdout: \(String(cString: strerror(code))) (errno \(code))\n"
            _ = ConsoleWriter.writeAll(Array(message.utf8), to: STDERR_FILENO)
        }
        _exit(1)
    }

    /// stdout's reader went away while nothing was being written (``StandardOutputWatch``): ends the process
    /// as the next write would, by SIGPIPE unless SIGPIPE is ignored, else with exit 1.
    package static func readerClosed() -> Never {
        if !isIgnored(SIGPIPE) {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_UNBLOCK, &pipeSignal, nil)
            raise(SIGPIPE)
            // Only a handler installed by someone else returns here.
            _exit(128 + SIGPIPE)
        }
        _exit(1)
    }

    /// Whether `signal`'s disposition is SIG_IGN (inherited across exec, as systemd sets SIGPIPE for services).
    static func isIgnored(_ signal: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(signal, nil, &current) == 0 else { return false }
        #if canImport(Glibc)
            let handler = current.__sigaction_handler.sa_handler
        #else
            let handler = current.__sigaction_u.__sa_handler
        #endif
        return unsafeBitCast(handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
    }
}
