import FirestoreFeed
import FirestoreREST

/// `watch --exec 'CMD ARGS' [--exec-timeout SECONDS]`: a command run once per snapshot instead of printing it.
struct ExecOptions: Sendable {
    static let options: [OptionSpec] = [
        .value(
            "--exec", "'CMD ARGS'",
            help: """
                run CMD (with /bin/sh -c) once per snapshot, the snapshot's JSON
                line on its stdin, instead of printing it; exit 0 acknowledges
                the snapshot (moving --checkpoint, or the shard's with --group);
                a failure is retried with back-off and later snapshots wait
                (at least once, in order)
                """),
        .value("--exec-timeout", "SECONDS", help: "kill a run of --exec still going after SECONDS (a failure)"),
    ]

    /// The command, or `nil` without `--exec`.
    let command: ExecCommand?
    let timeoutGiven: Bool

    init(parsing reader: ArgumentReader) throws(ValidationError) {
        let timeout = try reader.seconds("--exec-timeout", in: 0.01...86_400)
        timeoutGiven = timeout != nil
        command = reader.value("--exec").map { ExecCommand(command: $0, timeout: timeout) }
    }

    /// - Throws: ``ValidationError`` for an empty command or a timeout without `--exec`.
    func validate() throws(ValidationError) {
        if command == nil, timeoutGiven { throw ValidationError("--exec-timeout needs --exec") }
        if let command, command.command.allSatisfy(\.isWhitespace) { throw ValidationError("--exec needs a command") }
    }

    /// Hands `line` to the command until a run succeeds, waiting the policy's error back-off between runs (each
    /// failure reported on stderr); returns when one succeeded.
    /// - Throws: `CancellationError` when the task is cancelled while waiting (the snapshot is then not
    ///   acknowledged).
    func deliver(_ line: String, command: ExecCommand, policy: PollingPolicy) async throws {
        var failures = 0
        while true {
            switch await command.run(line) {
            case .succeeded: return
            case .failed(let reason):
                failures += 1
                let delay = policy.jittered(
                    policy.delay(afterFailures: failures, retryAfter: nil), random: Double.random(in: 0..<1))
                Console.error(
                    "warning: --exec failed (\(reason)); the snapshot is not acknowledged, running it again in "
                        + "\(Console.seconds(delay)) s")
                do {
                    try await Task.sleep(for: delay)
                } catch {
                    // SIGTERM during the back-off: said, so a service's log shows why the snapshot comes again.
                    Console.error(
                        "note: stopping with the snapshot not acknowledged: the next start delivers it again")
                    throw error
                }
            }
        }
    }
}
