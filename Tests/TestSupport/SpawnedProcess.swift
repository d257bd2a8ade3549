import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A child process started with posix_spawn, for what Foundation's `Process` cannot arrange: arguments as raw
/// bytes (invalid UTF-8 included), stdout or stderr closed (`>&-`), SIGPIPE ignored (as systemd starts
/// services), and a stdout pipe whose reader the test closes (`| head -n 2`).
///
/// The child starts with every signal unblocked and at its default action (a test process's threads block
/// some). Its exit is collected with waitpid on a thread of its own, never on the cooperative pool; a child
/// still running when the value is released is killed.
package final class SpawnedProcess: @unchecked Sendable {
    /// How a child ended.
    package enum Exit: Equatable, Sendable, CustomStringConvertible {
        /// exit(N).
        case exited(Int32)
        /// Killed by a signal.
        case signaled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exit \(status)"
            case .signaled(let signal): "signal \(signal)"
            }
        }
    }

    /// What the child's stdout (or stderr) is.
    package enum Stream {
        /// A pipe the test reads.
        case pipe
        /// Closed at exec, as `>&-` leaves it.
        case closed
    }

    package let pid: pid_t
    /// The child's stderr (empty when closed).
    package let stderr: PipeCollector?
    private let lock = NSLock()
    private var stdoutReader: Int32
    private var reaped = false

    /// Starts `executable` (the built `firestore-feed` by default) with `arguments` after its name, in this
    /// process's environment without FIRESTORE_EMULATOR_HOST (so only the flags count).
    /// - Parameter ignoringSIGPIPE: start it with SIGPIPE ignored (through `/bin/sh -c 'trap "" PIPE; exec ...'`:
    ///   an ignored signal stays ignored across exec, and posix_spawn can only reset signals to their default).
    package init(
        _ arguments: [[UInt8]], executable: URL = CLIProcess.executable, stdout: Stream = .pipe,
        stderr: Stream = .pipe, ignoringSIGPIPE: Bool = false
    ) throws {
        var argv: [[UInt8]] = [Array(executable.path.utf8)] + arguments
        var path = executable.path
        if ignoringSIGPIPE {
            argv = [Array("/bin/sh".utf8), Array("-c".utf8), Array(#"trap "" PIPE; exec "$0" "$@""#.utf8)] + argv
            path = "/bin/sh"
        }
        var environment = ProcessInfo.processInfo.environment
        environment[EmulatorEnvironment.hostVariable] = nil
        let envp = environment.map { Array("\($0.key)=\($0.value)".utf8) }

        var outputPipe: [Int32] = [-1, -1]
        var errorPipe: [Int32] = [-1, -1]
        if stdout == .pipe { try Self.closeOnExecPipe(&outputPipe) }
        if stderr == .pipe { try Self.closeOnExecPipe(&errorPipe) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        if stdout == .pipe {
            posix_spawn_file_actions_adddup2(&actions, outputPipe[1], STDOUT_FILENO)
        } else {
            posix_spawn_file_actions_addclose(&actions, STDOUT_FILENO)
        }
        if stderr == .pipe {
            posix_spawn_file_actions_adddup2(&actions, errorPipe[1], STDERR_FILENO)
        } else {
            posix_spawn_file_actions_addclose(&actions, STDERR_FILENO)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        var child: pid_t = 0
        let argvPointers = Self.cStrings(argv)
        let envPointers = Self.cStrings(envp)
        let spawned = posix_spawn(&child, path, &actions, &attributes, argvPointers, envPointers)
        for pointer in argvPointers + envPointers { pointer?.deallocate() }
        for descriptor in [outputPipe[1], errorPipe[1]] where descriptor >= 0 { close(descriptor) }
        guard spawned == 0 else {
            for descriptor in [outputPipe[0], errorPipe[0]] where descriptor >= 0 { close(descriptor) }
            throw SpawnFailure(errno: spawned, step: "posix_spawn \(path)")
        }
        pid = child
        stdoutReader = outputPipe[0]
        self.stderr =
            errorPipe[0] >= 0 ? PipeCollector(FileHandle(fileDescriptor: errorPipe[0], closeOnDealloc: true)) : nil
    }

    /// Starts the built `firestore-feed` with text arguments.
    package convenience init(
        arguments: [String], stdout: Stream = .pipe, stderr: Stream = .pipe, ignoringSIGPIPE: Bool = false
    ) throws {
        try self.init(
            arguments.map { Array($0.utf8) }, stdout: stdout, stderr: stderr, ignoringSIGPIPE: ignoringSIGPIPE)
    }

    deinit {
        let (running, reader) = lock.withLock { (!reaped, stdoutReader) }
        if reader >= 0 { close(reader) }
        if running {
            kill(pid, SIGKILL)
            let pid = pid
            let thread = Thread {
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
            }
            thread.name = "SpawnedProcess.reap"
            thread.start()
        }
    }

    /// Reads stdout on a thread of its own until `count` complete lines (or end of file) arrived, then, with
    /// `closing`, closes the read end: the reader going away, as `head -n COUNT` does. Returns the lines.
    package func readLines(_ count: Int, thenClose closing: Bool) async -> [String] {
        let reader = lock.withLock { stdoutReader }
        guard reader >= 0 else { return [] }
        let bytes = await withCheckedContinuation { (continuation: CheckedContinuation<[UInt8], Never>) in
            let thread = Thread { [self] in
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while bytes.lazy.filter({ $0 == UInt8(ascii: "\n") }).count < count {
                    let got = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                    if got < 0, errno == EINTR { continue }
                    if got <= 0 { break }
                    bytes += chunk[0..<got]
                }
                if closing {
                    lock.withLock {
                        close(stdoutReader)
                        stdoutReader = -1
                    }
                }
                continuation.resume(returning: bytes)
            }
            thread.name = "SpawnedProcess.readLines"
            thread.start()
        }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return lines.prefix(count).map(String.init)
    }

    /// Everything on stdout until end of file, read on a thread of its own.
    package func readToEnd() async -> String {
        let reader = lock.withLock {
            defer { stdoutReader = -1 }
            return stdoutReader
        }
        guard reader >= 0 else { return "" }
        let data = await CLIProcess.readToEnd(FileHandle(fileDescriptor: reader, closeOnDealloc: true))
        return String(decoding: data, as: UTF8.self)
    }

    /// Sends `signal` to the child, unless it was reaped (its pid may belong to another process by then).
    package func send(_ signal: Int32) {
        lock.withLock {
            if !reaped { _ = kill(pid, signal) }
        }
    }

    /// How the child ended, waited for on a thread of its own; after `timeout` seconds it is killed (SIGKILL),
    /// so this always returns (`.signaled(SIGKILL)` then). Call it once.
    package func exit(timeout: Double) async -> Exit {
        let watchdog = DispatchWorkItem { [self] in send(SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        defer { watchdog.cancel() }
        let pid = pid
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let thread = Thread { [self] in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                lock.withLock { reaped = true }
                continuation.resume(returning: status)
            }
            thread.name = "SpawnedProcess.exit"
            thread.start()
        }
        // <sys/wait.h>: the low 7 bits are the signal (0: exited), the next 8 the exit status.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    /// A pipe whose ends close on exec from the start (pipe2 with O_CLOEXEC): another test spawning a child at
    /// the same moment must not inherit the read end, or closing it here would not close the pipe. Glibc's
    /// module does not export pipe2 (a GNU extension), so it is looked up by name.
    private static func closeOnExecPipe(_ ends: inout [Int32]) throws {
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        guard let symbol = dlsym(nil, "pipe2") else { throw SpawnFailure(errno: ENOSYS, step: "dlsym pipe2") }
        let pipe2 = unsafeBitCast(symbol, to: Pipe2.self)
        guard pipe2(&ends, O_CLOEXEC) == 0 else { throw SpawnFailure(errno: errno, step: "pipe2") }
    }

    /// NUL-terminated copies of `strings` and a final `nil`, as argv and envp; the caller deallocates them.
    private static func cStrings(_ strings: [[UInt8]]) -> [UnsafeMutablePointer<CChar>?] {
        strings.map { bytes in
            let pointer = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { pointer[index] = CChar(bitPattern: byte) }
            pointer[bytes.count] = 0
            return pointer
        } + [nil]
    }

    /// A step of starting the child failed with `errno`.
    package struct SpawnFailure: Error, CustomStringConvertible {
        package let errno: Int32
        package let step: String
        package var description: String { "\(step): \(String(cString: strerror(errno)))" }
    }
}
