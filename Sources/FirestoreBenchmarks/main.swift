import FirestorePubSub
import FirestoreREST
import Foundation

/// `swift run -c release FirestoreBenchmarks [WORKLOAD...] [--quick] [--runs N] [--warmup N] [--sizes N,N,...]
/// [--postgres-url URL] [--mirror-documents N] [--tail-batch N] [--tail-seconds N] [--publish-rate N]`: runs the
/// named workloads
/// (all when none is named) and prints one table line and one JSON line per result. Workloads register in
/// ``workloads`` below; each lives in its own file.
struct BenchmarkError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// `--quick`: small sizes only (the test suite runs it once so the benchmarks cannot rot).
nonisolated(unsafe) var quick = false
/// `--sizes N,N,...`: the document counts of `listen-first-snapshot` (default 10,000, 100,000 and 1,000,000) and of
/// `listen-memory-vs-python` (default 10,000, 50,000 and 100,000), and the element counts of `diff` (default 1,000,
/// 10,000 and 100,000; only those three have pinned checksums).
nonisolated(unsafe) var chosenSizes: [Int]?

/// `--mirror-documents N`: the documents of `mirror-backfill` (default 20,000).
nonisolated(unsafe) var mirrorDocuments: Int?
/// `--tail-batch N`: the changes a commit of `mirror-tail`'s writers holds, and a batch (one snapshot) of
/// `mirror-tail-synthetic`'s server (default 10).
nonisolated(unsafe) var tailBatch = 10
/// `--tail-seconds N`: how long `mirror-tail-synthetic`'s server sends changes (default 30).
nonisolated(unsafe) var tailSeconds: Double?
/// `--publish-rate N`: the commits a second of `pubsub-publish`'s latency part (default 25).
nonisolated(unsafe) var publishRate = 25

/// Workload name -> what it runs and, when it has one, its target ratio (median / baseline median).
let workloads: [(name: String, target: Double?, run: () throws -> [Measurement])] = [
    ("parse", 1.5, { try ParseWorkload.run(count: quick ? 200 : 10_000) }),
    ("decode", 2, { try DecodeWorkload.run(count: quick ? 200 : 10_000) }),
    ("diff", nil, { try DiffWorkload.run(sizes: chosenSizes ?? (quick ? [1_000] : [1_000, 10_000, 100_000])) }),
    ("poll-unchanged", 1.5, { try PollWorkload.run(count: quick ? 200 : 10_000) }),
    ("feed-100k", 2, { try FeedWorkload.run(count: quick ? 1_000 : 100_000) }),
    (
        "emulator-rtt", 1.2,
        { try EmulatorRoundTripWorkload.run(requests: quick ? 5 : 100, documents: quick ? 10 : 100) }
    ),
    ("memory", nil, { try MemoryWorkload.run(count: quick ? 1_000 : 100_000) }),
    (
        "listen-latency", nil,
        { try ListenLatencyWorkload.run(listenWrites: quick ? 20 : 200, pollWrites: quick ? 5 : 40) }
    ),
    ("listen-cost", nil, { try ListenCostWorkload.run(documents: quick ? 200 : 10_000, seconds: quick ? 5 : 60) }),
    ("listen-fanout", nil, { try ListenFanoutWorkload.run(listeners: quick ? 100 : 1_000, changes: quick ? 5 : 20) }),
    ("slow-consumer", nil, { try SlowConsumerWorkload.run(documents: quick ? 200 : 2_000, seconds: quick ? 4 : 60) }),
    ("poll-cost", nil, { try PollCostWorkload.run(documents: quick ? 200 : 10_000, polls: quick ? 2 : 5) }),
    (
        "transaction-contention", nil,
        {
            try TransactionContentionWorkload.run(
                shapes: quick ? [(4, 3, 1)] : [(10, 10, 1), (20, 10, 1), (2, 10, 2)])
        }
    ),
    ("bulk-writer", nil, { try BulkWriterWorkload.run(documents: quick ? 200 : 10_000, runs: quick ? 1 : 5) }),
    (
        "protocol-rtt", nil,
        { try ProtocolRoundTripWorkload.run(requests: quick ? 5 : 100, documents: quick ? 10 : 100) }
    ),
    ("query", nil, { try QueryProtocolWorkload.run(documents: quick ? 200 : 10_000) }),
    ("export-memory", nil, { try ExportMemoryWorkload.run(documents: quick ? 1_000 : 100_000) }),
    ("feed-group", nil, { try FeedGroupWorkload.run(documents: quick ? 200 : 2_000, lease: .seconds(quick ? 3 : 6)) }),
    ("write-starvation", nil, { try WriteStarvationWorkload.run(pollers: quick ? 20 : 200, seconds: quick ? 2 : 20) }),
    ("mirror-load", nil, { try MirrorLoadWorkload.run(count: quick ? 1_000 : 100_000, repeats: quick ? 1 : 3) }),
    (
        "mirror-backfill", nil,
        { try MirrorLiveWorkload.backfill(documents: quick ? 200 : mirrorDocuments ?? 20_000, repeats: quick ? 1 : 3) }
    ),
    (
        "mirror-tail", nil,
        {
            try MirrorLiveWorkload.tail(
                rate: quick ? 200 : 1_000, seconds: quick ? 2 : 30, documents: quick ? 100 : 2_000)
            return []
        }
    ),
    (
        "mirror-tail-synthetic", nil,
        {
            try MirrorSyntheticTailWorkload.run(
                rate: quick ? 200 : 1_000, seconds: quick ? 1 : tailSeconds ?? 30, documents: quick ? 100 : 2_000)
            return []
        }
    ),
    (
        "pubsub-publish", nil,
        {
            try PubSubPublishWorkload.run(
                messages: quick ? 200 : 10_000, repeats: quick ? 1 : 3, rate: quick ? 20 : publishRate,
                seconds: quick ? 2 : 20)
        }
    ),
    (
        "listen-first-snapshot", nil,
        {
            try ListenFirstSnapshotWorkload.run(
                sizes: chosenSizes ?? (quick ? [1_000, 10_000] : [10_000, 100_000, 1_000_000]), repeats: quick ? 1 : 3)
        }
    ),
    (
        ListenMemoryVsPythonWorkload.name, nil,
        {
            try ListenMemoryVsPythonWorkload.run(
                sizes: chosenSizes ?? (quick ? [500, 2_000] : [10_000, 50_000, 100_000]), repeats: quick ? 1 : 3)
        }
    ),
]

var selected: [String] = []
var arguments = CommandLine.arguments.dropFirst()
// A child process of `listen-first-snapshot`: one measurement, one JSON line.
if arguments.first == ListenFirstSnapshotWorkload.childFlag {
    let parts = Array(arguments.dropFirst())
    guard parts.count == 2, let count = Int(parts[1]), count > 0 else {
        FileHandle.standardError.write(Data("error: \(ListenFirstSnapshotWorkload.childFlag) listen|query N\n".utf8))
        exit(2)
    }
    do {
        try ListenFirstSnapshotWorkload.runChild(path: parts[0], count: count)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
// A child process of `listen-memory-vs-python`: one Listen feed's first snapshot, prints `ok DOCUMENTS PEAK CPU WALL`.
if arguments.first == ListenMemoryVsPythonWorkload.childFlag {
    let parts = Array(arguments.dropFirst())
    guard parts.count == 3, let count = Int(parts[2]), count > 0 else {
        FileHandle.standardError.write(Data("error: \(ListenMemoryVsPythonWorkload.childFlag) HOST PROJECT N\n".utf8))
        exit(2)
    }
    do {
        try ListenMemoryVsPythonWorkload.runChild(host: parts[0], project: parts[1], count: count)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
// A whole-process child of `query`: one query read and decoded, prints `ok DOCUMENTS`.
if arguments.first == QueryProtocolWorkload.childFlag {
    let parts = Array(arguments.dropFirst())
    guard parts.count == 4, let wire = FirestoreProtocol(rawValue: parts[0]), let count = Int(parts[3]), count > 0
    else {
        FileHandle.standardError.write(
            Data("error: \(QueryProtocolWorkload.childFlag) rest|grpc HOST PROJECT N\n".utf8))
        exit(2)
    }
    do {
        try QueryProtocolWorkload.runChild(wire: wire, host: parts[1], project: parts[2], count: count)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
// One part of the diff workload run once, for `Scripts/bench-instructions` (diff-N, lcs-N).
if arguments.first == DiffWorkload.childFlag {
    let parts = Array(arguments.dropFirst())
    guard parts.count == 2, let part = DiffWorkload.ChildPart(rawValue: parts[0]), let count = Int(parts[1]) else {
        FileHandle.standardError.write(Data("error: \(DiffWorkload.childFlag) inputs|diff|lcs N\n".utf8))
        exit(2)
    }
    do {
        try DiffWorkload.runChild(part: part, n: count)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
// One REST runQuery decode run once, for `Scripts/bench-instructions` (rest-decode-N, rest-decode-tree-N).
if arguments.first == RESTDecodeChild.childFlag {
    let parts = Array(arguments.dropFirst())
    guard parts.count == 2, let part = RESTDecodeChild.Part(rawValue: parts[0]), let count = Int(parts[1]), count > 0
    else {
        FileHandle.standardError.write(Data("error: \(RESTDecodeChild.childFlag) inputs|bytes|tree N\n".utf8))
        exit(2)
    }
    do {
        try RESTDecodeChild.run(part: part, n: count)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
// A child process of `pubsub-publish`: publishes a file's messages, prints `ok SECONDS MESSAGES`.
if arguments.first == PubSubPublishWorkload.childFlag {
    let parts = Array(arguments.dropFirst())
    guard parts.count == 3, let wireProtocol = PubSubProtocol(rawValue: parts[2]) else {
        FileHandle.standardError.write(Data("error: \(PubSubPublishWorkload.childFlag) TOPIC FILE rest|grpc\n".utf8))
        exit(2)
    }
    do {
        try PubSubPublishWorkload.runChild(topic: parts[0], path: parts[1], protocol: wireProtocol)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        exit(1)
    }
}
while let argument = arguments.popFirst() {
    switch argument {
    case "--sizes":
        guard let text = arguments.popFirst() else {
            FileHandle.standardError.write(Data("error: --sizes needs N,N,...\n".utf8))
            exit(2)
        }
        let sizes = text.split(separator: ",").compactMap { Int($0) }.filter { $0 > 0 }
        guard !sizes.isEmpty, sizes.count == text.split(separator: ",").count else {
            FileHandle.standardError.write(Data("error: --sizes needs positive integers, comma-separated\n".utf8))
            exit(2)
        }
        chosenSizes = sizes
    case "--postgres-url":
        guard let text = arguments.popFirst(), !text.isEmpty else {
            FileHandle.standardError.write(Data("error: --postgres-url needs a URL\n".utf8))
            exit(2)
        }
        postgresURL = text
    case "--mirror-documents":
        guard let text = arguments.popFirst(), let value = Int(text), value > 0 else {
            FileHandle.standardError.write(Data("error: --mirror-documents needs a positive integer\n".utf8))
            exit(2)
        }
        mirrorDocuments = value
    case "--tail-batch":
        guard let text = arguments.popFirst(), let value = Int(text), value > 0, value <= 500 else {
            FileHandle.standardError.write(Data("error: --tail-batch needs an integer from 1 to 500\n".utf8))
            exit(2)
        }
        tailBatch = value
    case "--tail-seconds":
        guard let text = arguments.popFirst(), let value = Double(text), value > 0, value <= 3600 else {
            FileHandle.standardError.write(Data("error: --tail-seconds needs seconds, above 0, at most 3600\n".utf8))
            exit(2)
        }
        tailSeconds = value
    case "--publish-rate":
        guard let text = arguments.popFirst(), let value = Int(text), value > 0, value <= 1_000 else {
            FileHandle.standardError.write(Data("error: --publish-rate needs an integer from 1 to 1000\n".utf8))
            exit(2)
        }
        publishRate = value
    case "--runs", "--warmup":
        guard let text = arguments.popFirst(), let value = Int(text), value >= 0 else {
            FileHandle.standardError.write(Data("error: \(argument) needs a non-negative integer\n".utf8))
            exit(2)
        }
        if argument == "--runs" { Harness.runs = value } else { Harness.warmup = value }
    case "--quick":
        quick = true
        Harness.runs = 3
        Harness.warmup = 1
    case "-h", "--help":
        print(
            "usage: FirestoreBenchmarks [WORKLOAD...] [--quick] [--runs N] [--warmup N] [--sizes N,N,...] "
                + "[--postgres-url URL] [--mirror-documents N] [--tail-batch N] [--tail-seconds N] "
                + "[--publish-rate N]")
        print(
            "  --sizes: the document counts of listen-first-snapshot (default 10000,100000,1000000) and of "
                + "listen-memory-vs-python (default 10000,50000,100000), and the element counts of diff (default "
                + "1000,10000,100000)")
        print(
            "  --postgres-url: the PostgreSQL of the mirror-* workloads (default FIRESTORE_FEED_TEST_POSTGRES_URL; "
                + "Scripts/postgres start prints one)")
        print("  --mirror-documents: the documents of mirror-backfill (default 20000)")
        print(
            "  --tail-batch: the changes in each commit of mirror-tail's writers, and in each batch of "
                + "mirror-tail-synthetic's server (default 10)")
        print("  --tail-seconds: how long mirror-tail-synthetic's server sends changes (default 30)")
        print("  --publish-rate: the commits a second of pubsub-publish's latency part (default 25)")
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
            Harness.report(
                measurement,
                target: measurement.target ?? (measurement.workload == workload.name ? workload.target : nil))
        }
    }
} catch {
    FileHandle.standardError.write(Data("error: \(error)\n".utf8))
    exit(1)
}
