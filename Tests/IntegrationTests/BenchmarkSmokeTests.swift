import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Runs `FirestoreBenchmarks --quick` (the debug build beside the test binary) once, so the benchmark suite
/// cannot rot: every workload runs, its correctness checks pass, and each prints its JSON line. No timing is
/// judged here: speed is judged only by `Scripts/bench` in release mode.
/// The time limit is a hang guard above the process's own (600 s).
@Suite(.timeLimit(.minutes(12))) struct BenchmarkSmokeTests {
    @Test func quickRunPrintsEveryWorkload() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let binary = CLIProcess.executable.deletingLastPathComponent().appendingPathComponent("FirestoreBenchmarks")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--quick"]
        var environment = ProcessInfo.processInfo.environment
        environment["FIRESTORE_EMULATOR_HOST"] = host
        // `pubsub-publish` is skipped here without the Pub/Sub emulator: `pubsubPublishQuickRun` runs it.
        environment["PUBSUB_EMULATOR_HOST"] = nil
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        async let errorData = CLIProcess.readToEnd(errors.fileHandleForReading)
        let data = await CLIProcess.readToEnd(output.fileHandleForReading)
        let status = await process.exitStatus(timeout: 600)
        let text = String(decoding: data, as: UTF8.self)
        let errorText = String(decoding: await errorData, as: UTF8.self)
        #expect(status == 0, "stderr:\n\(errorText.suffix(3000))\noutput:\n\(text)")
        let workloads = text.split(separator: "\n").filter { $0.hasPrefix("{\"workload\"") }.compactMap { line in
            (try? JSONValue.parse(String(line)))?["workload"]?.stringValue
        }
        // The mirror workloads' PostgreSQL rows need a server: the one Scripts/test starts
        // (FIRESTORE_FEED_TEST_POSTGRES_URL, which the benchmark reads).
        let postgresRows: Set<String> = [
            "mirror-load-postgres", "mirror-apply-postgres", "mirror-backfill-postgres",
            "mirror-backfill-postgres-reads",
            "mirror-tail-postgres", "mirror-tail-synthetic-postgres",
        ]
        if ProcessInfo.processInfo.environment["FIRESTORE_FEED_TEST_POSTGRES_URL"]?.isEmpty == false {
            #expect(postgresRows.isSubset(of: Set(workloads)), "workloads: \(workloads)")
        }
        #expect(
            Set(workloads).subtracting(postgresRows) == [
                "parse", "decode", "decode-rest", "decode-grpc", "diff-vs-stdlib", "diff-vs-lcs", "diff-a3",
                "poll-bytes", "poll-full",
                "poll-keys", "feed-100k", "emulator-rtt", "memory", "listen-latency", "listen-cost", "listen-fanout",
                "slow-consumer", "poll-cost", "transaction-contention", "bulk-writer", "bulk-writer-20",
                "bulk-writer-throttled", "export-memory", "feed-group-1", "feed-group-2", "feed-group-4",
                "emulator-rtt-grpc", "write-latency-grpc", "query-rest", "query-rest-process", "query-grpc",
                "query-grpc-process", "query-grpc-vs-python", "query-cpu", "write-starvation", "listen-first-snapshot",
                "listen-memory-vs-python",
                "mirror-load-sqlite", "mirror-apply-sqlite",
                "mirror-backfill-sqlite", "mirror-backfill-sqlite-reads", "mirror-tail-sqlite",
                "mirror-tail-synthetic-sqlite",
            ], "workloads: \(workloads)")
        #expect(!text.contains("CHECK FAILED"))
    }

    /// `FirestoreBenchmarks pubsub-publish --quick` on both emulators: its rows (this package's publisher over REST and
    /// over gRPC beside Google's Python publisher, in process and whole process; gRPC beside REST; commit-to-publish
    /// latency), no check failed.
    @Test(.needsPubSub) func pubsubPublishQuickRun() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let pubsub = try PubSubEnvironment.requireHost()
        let binary = CLIProcess.executable.deletingLastPathComponent().appendingPathComponent("FirestoreBenchmarks")
        let process = Process()
        process.executableURL = binary
        process.arguments = ["pubsub-publish", "--quick"]
        var environment = ProcessInfo.processInfo.environment
        environment["FIRESTORE_EMULATOR_HOST"] = host
        environment["PUBSUB_EMULATOR_HOST"] = pubsub
        process.environment = environment
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        async let errorData = CLIProcess.readToEnd(errors.fileHandleForReading)
        let data = await CLIProcess.readToEnd(output.fileHandleForReading)
        let status = await process.exitStatus(timeout: 300)
        let text = String(decoding: data, as: UTF8.self)
        let errorText = String(decoding: await errorData, as: UTF8.self)
        #expect(status == 0, "stderr:\n\(errorText.suffix(3000))\noutput:\n\(text)")
        let workloads = text.split(separator: "\n").filter { $0.hasPrefix("{\"workload\"") }.compactMap { line in
            (try? JSONValue.parse(String(line)))?["workload"]?.stringValue
        }
        #expect(
            workloads == [
                "pubsub-latency", "pubsub-publish", "pubsub-publish-grpc", "pubsub-publish-grpc-vs-rest",
                "pubsub-publish-process", "pubsub-publish-grpc-process",
            ], "output:\n\(text)")
        #expect(!text.contains("CHECK FAILED"), "output:\n\(text)")
    }
}
