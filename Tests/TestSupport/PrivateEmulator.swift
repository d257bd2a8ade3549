import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A Firestore emulator of a test's own (`Scripts/emulator` with a private state folder), on a loopback port the
/// test chooses, so the test can stop it and start it again on the same port. Each start takes a few seconds.
package final class PrivateEmulator: Sendable {
    /// `127.0.0.1:PORT`.
    package let host: String
    private let stateFolder: URL

    private static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/emulator")
    }

    /// Starts an emulator on `port` and waits until it answers.
    /// - Throws: when `Scripts/emulator start` fails (its output in the message).
    package init(port: Int) async throws {
        stateFolder = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString)")
        host = "127.0.0.1:\(port)"
        try await start()
    }

    /// Starts the emulator (again) on the same port.
    package func start() async throws {
        let port = String(host.split(separator: ":").last ?? "")
        let result = try await Self.run(["start", port], stateFolder: stateFolder)
        guard result.status == 0 else {
            throw CLIProcessFailure(description: "Scripts/emulator start \(port): \(result.stderr)")
        }
    }

    /// Stops the emulator (its whole process group) and waits until it is gone.
    package func stop() async throws {
        _ = try await Self.run(["stop"], stateFolder: stateFolder)
    }

    /// Runs `Scripts/emulator ARGUMENTS` with `posix_spawn` and reaps it with `waitpid` on a thread of its own;
    /// its output goes to a file. (Foundation's `Process` lost the exit of this script, which leaves a daemon
    /// behind: its `waitUntilExit` spun on a zombie.)
    private static func run(_ arguments: [String], stateFolder: URL) async throws -> (status: Int32, stderr: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("emulator-\(UUID().uuidString).log")
        defer { try? FileManager.default.removeItem(at: log) }
        let command =
            "EMULATOR_STATE_DIR='\(stateFolder.path)' '\(script.path)' \(arguments.joined(separator: " "))"
            + " </dev/null >'\(log.path)' 2>&1"
        let status = await withCheckedContinuation { (continuation: CheckedContinuation<Int32, Never>) in
            let thread = Thread {
                var pid: pid_t = 0
                let argv: [UnsafeMutablePointer<CChar>?] = [strdup("/bin/sh"), strdup("-c"), strdup(command), nil]
                defer { for pointer in argv { free(pointer) } }
                guard posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ) == 0 else {
                    continuation.resume(returning: -1)
                    return
                }
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0, errno == EINTR {}
                continuation.resume(returning: (status >> 8) & 0xFF)
            }
            thread.name = "PrivateEmulator"
            thread.start()
        }
        return (status, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    struct CLIProcessFailure: Error, CustomStringConvertible {
        let description: String
    }
}
