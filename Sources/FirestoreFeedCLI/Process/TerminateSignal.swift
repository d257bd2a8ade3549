#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The write end of ``TerminateSignal``'s pipe, for the signal handler (which can capture nothing).
nonisolated(unsafe) private var terminatePipeWriteEnd: Int32 = -1

/// SIGTERM as an event a command can await, for the commands that end gracefully on it (`watch --group`: release
/// the leases, exit 0). The handler only writes one byte to a pipe (`write(2)` is async-signal-safe); a thread of
/// its own (``OwnThread``) waits for the byte, never the cooperative pool. Commands that do not install it keep
/// SIGTERM's default action (exit 143).
enum TerminateSignal {
    /// Installs the handler and returns once SIGTERM arrives; `nil` when the pipe cannot be made (SIGTERM then keeps
    /// its default action).
    static func wait() async -> Void? {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        let readEnd = ends[0]
        terminatePipeWriteEnd = ends[1]
        var action = sigaction()
        #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(terminatePipeWriteEnd, &byte, 1)
            }
        #else
            action.__sigaction_u.__sa_handler = { _ in
                var byte: UInt8 = 1
                _ = write(terminatePipeWriteEnd, &byte, 1)
            }
        #endif
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        _ = sigaction(SIGTERM, &action, nil)
        let arrived = try? await OwnThread.run("firestore-feed SIGTERM") {
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count == 1 { return true }
                if count < 0, errno == EINTR { continue }
                return false
            }
        }
        return arrived == true ? () : nil
    }
}
