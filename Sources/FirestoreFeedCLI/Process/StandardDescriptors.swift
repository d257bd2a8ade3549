#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Keeps the numbers 0, 1 and 2 for stdin, stdout and stderr even when the tool is started with one closed
/// (`firestore-feed query k >&-`).
///
/// open(2) returns the lowest free number, so with stdout closed the first descriptor the process opens (an
/// epoll or event descriptor of libdispatch, a socket of libcurl) would become "stdout", and the tool's output
/// would be written into it. ``reserve()`` puts `/dev/null` on each closed one, opened read-only for stdout
/// and stderr so a write still fails (EBADF, as on the closed descriptor: ``OutputFailure``).
package enum StandardDescriptors {
    /// Reserves the closed standard descriptors. Call it first in `main`, before the first `await`: nothing
    /// has opened a descriptor yet then (libdispatch opens its own once the first task is scheduled).
    package static func reserve() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO] where fcntl(descriptor, F_GETFD) < 0 {
            let opened = open("/dev/null", O_RDONLY)
            if opened >= 0, opened != descriptor {
                // The lowest free number is `descriptor` itself, the lower ones being open by now; just in case.
                _ = dup2(opened, descriptor)
                _ = close(opened)
            }
        }
    }
}
