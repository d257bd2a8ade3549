import FirestoreREST
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `watch --exec 'CMD ARGS'`: one run of `/bin/sh -c CMD` per snapshot, the snapshot's JSON line on its standard
/// input, its standard output and error the watch's own. Spawned (`posix_spawn`, with a clean signal mask and
/// default dispositions) and awaited (`waitpid`) on a thread of its own (``OwnThread``), never on the cooperative
/// pool.
struct ExecCommand: Sendable {
    /// The command line given to `/bin/sh -c`.
    let command: String
    /// `--exec-timeout`: a run still going after this is killed (SIGKILL) and counts as a failure.
    let timeout: Duration?

    /// How a run ended.
    enum Outcome: Sendable, Equatable {
        case succeeded
        case failed(String)
        /// Ended by the caller (``run(_:environment:until:)``'s `stop` returned first): SIGTERM, then SIGKILL after
        /// ``stopGrace``.
        case stopped
    }

    /// How long a command asked to stop (SIGTERM) has before it is killed (SIGKILL).
    static let stopGrace: Duration = .seconds(5)

    /// Runs the command once with `line` (and a newline) on its standard input and `environment` added to the
    /// watch's own. When `stop` returns before the command ends, the command is ended (``Outcome/stopped``).
    func run(
        _ line: String, environment: [String: String] = [:], until stop: (@Sendable () async -> Void)? = nil
    ) async -> Outcome {
        let command = self.command
        let timeout = self.timeout
        let stopRequest = StopRequest()
        let watcher = stop.map { stop in
            Task {
                await stop()
                if !Task.isCancelled { stopRequest.requested.store(true, ordering: .relaxed) }
            }
        }
        defer { watcher?.cancel() }
        do {
            return try await OwnThread.run("firestore-feed --exec") { () throws(FirestoreError) -> Outcome in
                Self.runBlocking(
                    command, input: Array((line + "\n").utf8), environment: environment, timeout: timeout,
                    stop: stop == nil ? nil : stopRequest)
            }
        } catch {
            return .failed(error.message)
        }
    }

    /// Set when a running command is to be ended.
    final class StopRequest: Sendable {
        let requested = Atomic(false)
    }

    /// `environ` with `extra` added (replacing variables of the same name), as `NAME=VALUE` C strings for
    /// `posix_spawn` (nil-terminated; the caller frees them).
    private static func environment(adding extra: [String: String]) -> [UnsafeMutablePointer<CChar>?] {
        var entries: [String] = []
        var index = 0
        while let entry = environ[index] {
            let text = String(cString: entry)
            let name = text.split(separator: "=", maxSplits: 1).first.map(String.init) ?? text
            if extra[name] == nil { entries.append(text) }
            index += 1
        }
        entries += extra.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        return entries.map { strdup($0) } + [nil]
    }

    /// Spawns, feeds and waits for one run; blocks the calling thread.
    private static func runBlocking(
        _ command: String, input: [UInt8], environment extra: [String: String], timeout: Duration?,
        stop: StopRequest?
    ) -> Outcome {
        // A command that does not read its input closes the pipe: the write fails with EPIPE (SIGPIPE blocked on
        // this thread, and discarded with it), not a failure of the run.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return .failed("could not make a pipe: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, ends[0], 0)
        posix_spawn_file_actions_addclose(&actions, ends[0])
        posix_spawn_file_actions_addclose(&actions, ends[1])
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGTERM, SIGINT, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let arguments = ["/bin/sh", "-c", command]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp = extra.isEmpty ? [] : environment(adding: extra)
        defer { for pointer in envp { free(pointer) } }
        let spawned =
            extra.isEmpty
            ? posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, environ)
            : posix_spawn(&pid, "/bin/sh", &actions, &attributes, &argv, &envp)
        close(ends[0])
        guard spawned == 0 else {
            close(ends[1])
            return .failed("could not start /bin/sh: errno \(spawned)")
        }
        var offset = 0
        while offset < input.count {
            let written = input.withUnsafeBytes {
                write(ends[1], $0.baseAddress.map { $0 + offset }, input.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            if written <= 0 { break }
            offset += written
        }
        close(ends[1])
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var status: Int32 = 0
        var timedOut = false
        var stoppedAt: ContinuousClock.Instant?
        let polls = deadline != nil || stop != nil
        while true {
            let result = waitpid(pid, &status, polls ? WNOHANG : 0)
            if result == pid { break }
            if result < 0, errno != EINTR { return .failed("lost the command: errno \(errno)") }
            guard result == 0 else { continue }
            // The command's shell and whatever it started (``ProcessTree``).
            if let deadline, ContinuousClock.now >= deadline, !timedOut, stoppedAt == nil {
                timedOut = true
                ProcessTree.signal(pid, SIGKILL)
            }
            if let stop, stop.requested.load(ordering: .relaxed), !timedOut {
                if let stoppedAt {
                    if ContinuousClock.now - stoppedAt >= stopGrace { ProcessTree.signal(pid, SIGKILL) }
                } else {
                    stoppedAt = .now
                    ProcessTree.signal(pid, SIGTERM)
                }
            }
            usleep(5_000)
        }
        if stoppedAt != nil { return .stopped }
        if timedOut { return .failed("timed out after \(timeout.map { "\($0)" } ?? "") and was killed") }
        let signal = status & 0x7f
        if signal != 0 { return .failed("killed by signal \(signal)") }
        let exitStatus = (status >> 8) & 0xff
        return exitStatus == 0 ? .succeeded : .failed("exit status \(exitStatus)")
    }
}
