import FirestoreFeed
import FirestoreREST
import Foundation

/// `memory` (issue 9): resident memory while holding a 100,000-document snapshot (after parsing its runQuery
/// response and dropping the bytes), against the size of the raw JSON response. Target: at most 3x. Read
/// from `/proc/self/status` (`VmRSS`, and `VmHWM` for the peak during parsing).
enum MemoryWorkload {
    static func kilobytes(_ key: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "0") ?? 0
        }
        return 0
    }

    static func run(count: Int) throws -> [Measurement] {
        var bodySize = 0
        let before = kilobytes("VmRSS")
        let snapshot: [Document] = try {
            let body = BenchmarkDocuments.runQueryBody(BenchmarkDocuments.documents(count))
            bodySize = body.count
            return try Firestore.decodeRunQuery(JSONValue.parse(body)).documents
        }()
        let holding = kilobytes("VmRSS") - before
        let peak = kilobytes("VmHWM") - before
        let ratio = Double(holding * 1024) / Double(max(bodySize, 1))
        print("memory: \(count) documents held in \(holding / 1024) MiB resident (peak +\(peak / 1024) MiB while parsing), "
            + "raw response \(bodySize / 1_048_576) MiB, ratio \(String(format: "%.2f", ratio))x "
            + "(target <= 3x: \(ratio <= 3 ? "met" : "MISSED"))")
        print(#"{"workload":"memory","n":\#(snapshot.count),"resident_bytes":\#(holding * 1024),"raw_bytes":\#(bodySize),"#
            + #""peak_bytes":\#(peak * 1024),"ratio":\#(ratio)}"#)
        withExtendedLifetime(snapshot) {}
        return []
    }
}
