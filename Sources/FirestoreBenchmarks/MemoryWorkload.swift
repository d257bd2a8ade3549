import FirestoreFeed
import FirestoreREST
import Foundation

/// `memory` (issue 9): resident memory while holding a 100,000-document snapshot (after parsing its runQuery
/// response and dropping the bytes), against the size of the raw JSON response. Target: at most 3x. Read
/// from `/proc/self/status` (`VmRSS` after `malloc_trim`, and `VmHWM` for the peak during parsing). The body
/// is decoded as `runQuery` decodes it, one element at a time. Run it in a process of its own (as
/// `Scripts/bench` does): earlier workloads' heap would otherwise hide its growth.
enum MemoryWorkload {
    static func kilobytes(_ key: String) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(key + ":") {
            return Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "0") ?? 0
        }
        return 0
    }

    /// glibc's `malloc_trim(0)` (not in the Glibc module map), looked up at run time.
    static func trimHeap() {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") else { return }
        typealias MallocTrim = @convention(c) (Int) -> Int32
        _ = unsafeBitCast(symbol, to: MallocTrim.self)(0)
    }

    static func run(count: Int) throws -> [Measurement] {
        var bodySize = 0
        var before = 0
        let snapshot: [Document] = try {
            let body = BenchmarkDocuments.runQueryBody(BenchmarkDocuments.documents(count))
            bodySize = body.count
            // Only the parse counts: drop what building the input left behind and reset the peak.
            trimHeap()
            try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
            before = kilobytes("VmRSS") - bodySize / 1024
            return try Firestore.decodeRunQuery(body: body).documents
        }()
        // Give freed heap back to the system first: resident memory then counts what the snapshot holds, not
        // what malloc keeps for reuse after parsing.
        trimHeap()
        let holding = kilobytes("VmRSS") - before
        let peak = kilobytes("VmHWM") - before  // bytes of the response included
        let ratio = Double(holding * 1024) / Double(max(bodySize, 1))
        let verdict = Harness.goal(
            "memory: \(count) documents held / the raw response", figure: String(format: "%.2fx", ratio),
            target: "<= 3x", met: ratio <= 3)
        print(
            "memory: \(count) documents held in \(holding / 1024) MiB resident (peak +\(peak / 1024) MiB while parsing), "
                + "raw response \(bodySize / 1_048_576) MiB, ratio \(String(format: "%.2f", ratio))x "
                + "(target <= 3x: \(verdict))")
        print(
            #"{"workload":"memory","n":\#(snapshot.count),"resident_bytes":\#(holding * 1024),"raw_bytes":\#(bodySize),"#
                + #""peak_bytes":\#(peak * 1024),"ratio":\#(ratio)}"#)
        withExtendedLifetime(snapshot) {}
        return []
    }
}
