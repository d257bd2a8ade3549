import FirestoreTestSupport
import Foundation
import Testing

/// `Scripts/bench-report` writes BENCHMARKS.md from one run folder of `Scripts/bench` and nothing else: the Goals
/// table lists every goal line of every section, met or missed; a missed goal gets its explanation from
/// `Scripts/bench-sections/missed`; a section's Harness lines become its table and its other lines its output; a run
/// folder missing a section is refused (exit 1, naming it), since the report is of one whole run or of none.
@Suite(.timeLimit(.minutes(1))) struct BenchReportTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let script = root.appendingPathComponent("Scripts/bench-report")

    /// The section names of `Scripts/bench-sections/NN-NAME.md`.
    static func sectionNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("Scripts/bench-sections").path)
            .filter { $0.hasSuffix(".md") && $0.first?.isNumber == true }.sorted()
            .map { String($0.dropLast(3).drop(while: { $0 != "-" }).dropFirst()) }
    }

    /// A run folder with every section, each printing `OUTPUT` lines; `in-process` also a Harness line and two goals.
    static func runFolder(leaving missing: String? = nil) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("bench-report-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try """
        commit=abc1234
        started=2026-12-06 20:00 UTC
        finished=2026-12-06 20:45 UTC
        cores=2
        cpu=Some CPU
        memory=24 GiB
        swift=Swift version 6.3.1
        kernel=Linux 6.18
        quick=

        """.write(to: folder.appendingPathComponent("run.env"), atomically: true, encoding: .utf8)
        for name in try sectionNames() where name != missing {
            var output = "\(name): a figure of this run\n"
            if name == "in-process" {
                output +=
                    #"{"goal":"parse at 10000, against JSONSerialization","figure":"0.28x","target":"<= 1.5x","met":true}"#
                output += "\n"
                output +=
                    #"{"goal":"poll-unchanged: keys-mode bytes / full mode's (10000 documents)","figure":"15.4 %","target":"<= 15 %","met":false}"#
                output += "\n"
                output +=
                    #"{"workload":"parse","n":10000,"median_s":0.16585,"baseline":"JSONSerialization","baseline_median_s":0.5985,"ratio":0.27711}"#
                output += "\n"
            }
            try output.write(to: folder.appendingPathComponent("\(name).out"), atomically: true, encoding: .utf8)
            try "start=20:01\nload_start=1.50\ncommand=FirestoreBenchmarks \(name)\nend=20:02\nload_end=2.25\n".write(
                to: folder.appendingPathComponent("\(name).meta"), atomically: true, encoding: .utf8)
        }
        return folder
    }

    @Test func everyFigureComesFromTheRunFolder() async throws {
        let folder = try Self.runFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await CLIProcess.run([folder.path], executable: Self.script)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "# Benchmarks")
        #expect(
            lines.contains("2 goals: 1 met, 1 missed (why: [Where a goal is missed](#where-a-goal-is-missed-and-why)).")
        )
        #expect(lines.contains("| in-process | parse at 10000, against JSONSerialization | 0.28x | <= 1.5x | met |"))
        #expect(
            lines.contains(
                "| in-process | poll-unchanged: keys-mode bytes / full mode's (10000 documents) | 15.4 % | <= 15 % | **missed** |"
            ))
        #expect(lines.contains("| parse | 10,000 | 165.85 ms | JSONSerialization | 598.50 ms | 0.277x |"))
        #expect(
            lines.contains(
                "_Ran 20:01-20:02 UTC, load average 1.50 before and 2.25 after: `FirestoreBenchmarks mirror`._"))
        #expect(lines.contains("mirror: a figure of this run"))
        // JSON lines are the tables' and the goals' source, never printed as output.
        #expect(!result.stdout.contains(#"{"workload""#))
        #expect(
            lines.contains(
                "**poll-unchanged: keys-mode bytes / full mode's (10000 documents)**: 15.4 % (target <= 15 %)."))
        #expect(result.stdout.contains("A keys-only row is the document's name"))
        #expect(result.stdout.contains("commit `abc1234`, 2026-12-06 20:00 UTC to 2026-12-06 20:45 UTC"))
        #expect(try Self.sectionNames().count == 12)
    }

    @Test func aRunThatSkippedAPartIsRefused() async throws {
        let folder = try Self.runFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        try "mirror-load: PostgreSQL part skipped (no psql: Scripts/ensure-deps --tests installs it)\n".write(
            to: folder.appendingPathComponent("mirror.out"), atomically: true, encoding: .utf8)
        let result = try await CLIProcess.run([folder.path], executable: Self.script)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "bench-report: section mirror skipped a part, so the run is not whole: mirror-load: PostgreSQL part "
                + "skipped (no psql: Scripts/ensure-deps --tests installs it)\n")
    }

    @Test func aRunWithoutOneSectionIsRefused() async throws {
        let folder = try Self.runFolder(leaving: "pubsub")
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await CLIProcess.run([folder.path], executable: Self.script)
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix("bench-report: the run has no output for section pubsub ("))
    }
}
