import Foundation

/// `swift run -c release FirestoreBenchmarks [WORKLOAD...] [--runs N] [--warmup N]`: runs the named workloads
/// (all when none is named) and prints one table line and one JSON line per result. Workloads register in
/// ``workloads`` below; each lives in its own file.
struct BenchmarkError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Workload name -> what it runs and, when it has one, its target ratio.
let workloads: [(name: String, target: Double?, run: () throws -> [Measurement])] = [
    ("decode", 2, { try DecodeWorkload.run() }),
    ("diff", nil, { try DiffWorkload.run() }),
]

var selected: [String] = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--runs", "--warmup":
        guard let text = arguments.popFirst(), let value = Int(text), value >= 0 else {
            FileHandle.standardError.write(Data("error: \(argument) needs a non-negative integer\n".utf8))
            exit(2)
        }
        if argument == "--runs" { Harness.runs = value } else { Harness.warmup = value }
    case "-h", "--help":
        print("usage: FirestoreBenchmarks [WORKLOAD...] [--runs N] [--warmup N]")
        print("workloads: \(workloads.map(\.name).joined(separator: ", "))")
        exit(0)
    default:
        selected.append(argument)
    }
}
for name in selected where !workloads.contains(where: { $0.name == name }) {
    FileHandle.standardError.write(
        Data("error: unknown workload \(name); known: \(workloads.map(\.name).joined(separator: ", "))\n".utf8))
    exit(2)
}
do {
    for workload in workloads where selected.isEmpty || selected.contains(workload.name) {
        for measurement in try workload.run() {
            Harness.report(measurement, target: measurement.workload == workload.name ? workload.target : nil)
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
