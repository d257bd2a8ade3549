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
                (at least once, in order); with --group, the environment holds
                FIRESTORE_FEED_GROUP, FIRESTORE_FEED_SHARD and the fencing token
                FIRESTORE_FEED_GENERATION, and a run for a shard no longer held
                at that generation is not made, or is ended
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
    /// failure reported on stderr).
    ///
    /// With `shard` (a feed group's snapshot): the command's environment holds the shard and its fencing token
    /// (`FIRESTORE_FEED_GROUP`, `FIRESTORE_FEED_SHARD`, `FIRESTORE_FEED_GENERATION`); the fence is checked before
    /// each run and after each failure, and a run still going when the fence falls is ended (SIGTERM, then SIGKILL
    /// after 5 s, to the command's shell and every process it started). A snapshot whose fence fell is never run again here: the shard's next owner delivers it.
    /// - Returns: `true` once a run succeeded; `false` when the fence of `shard` fell first (not acknowledged).
    /// - Throws: `CancellationError` when the task is cancelled while waiting (the snapshot is then not
    ///   acknowledged).
    @discardableResult
    func deliver(
        _ line: String, command: ExecCommand, policy: PollingPolicy, shard: ShardSnapshot? = nil, group: String = ""
    ) async throws -> Bool {
        var failures = 0
        var environment: [String: String] = [:]
        if let shard {
            environment = [
                "FIRESTORE_FEED_GROUP": group, "FIRESTORE_FEED_SHARD": "\(shard.shard)",
                "FIRESTORE_FEED_GENERATION": "\(shard.generation)",
            ]
        }
        func fenceFell() async -> Bool {
            guard let shard, await !shard.fenceStands() else { return false }
            Console.error(
                "note: --exec not run for shard \(shard.shard) at generation \(shard.generation): this member no "
                    + "longer holds the shard at that generation; its next owner delivers the snapshot again")
            return true
        }
        while true {
            if await fenceFell() { return false }
            var stop: (@Sendable () async -> Void)?
            if let shard { stop = { await shard.fenceFalls() } }
            switch await command.run(line, environment: environment, until: stop) {
            case .succeeded: return true
            case .stopped:
                Console.error(
                    "warning: --exec was still running when the fence of shard \(shard?.shard ?? 0) at generation "
                        + "\(shard?.generation ?? 0) fell; it was ended (SIGTERM, then SIGKILL after 5 s), and the "
                        + "snapshot is left to the shard's next owner")
                return false
            case .failed(let reason):
                if await fenceFell() { return false }
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
