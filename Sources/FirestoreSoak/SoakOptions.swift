import Foundation

/// The command line of `FirestoreSoak`.
struct SoakOptions: Sendable {
    /// `HOST:PORT` of the emulator (the writer and the final direct query go there).
    var emulator = ""
    /// `HOST:PORT` of `Scripts/fault-proxy` in front of the emulator (the feed polls through it).
    var proxy = ""
    /// The proxy's stderr log (`fault=<kind> METHOD PATH` lines), for the faults by kind; optional.
    var proxyLog: String?
    /// Polls (runQuery requests) to make before the writer stops.
    var polls = 1000
    /// Documents in the watched collection at any time.
    var documents = 40
    /// Time between polls, milliseconds.
    var intervalMilliseconds = 10
    /// Time between two writes, milliseconds.
    var writeMilliseconds = 25
    /// The poll count at which the baseline of resident memory is taken.
    var memoryBaselinePolls = 100
    /// Allowed change of resident memory from the baseline to the end, percent.
    var memoryTolerancePercent = 10.0
    /// The emulator project; fresh when empty.
    var project = ""

    static let usage = """
        usage: FirestoreSoak --emulator HOST:PORT --proxy HOST:PORT [--proxy-log FILE] [--polls 1000]
                             [--documents 40] [--interval-ms 10] [--write-ms 25] [--memory-baseline 100]
                             [--memory-tolerance 10] [--project ID]
        Watches a collection through the fault proxy while writing to it directly, then checks the feed:
        final snapshot == direct query, no spurious change, resident memory at the end within the tolerance
        (percent) of that after the first 100 polls. Prints the figures; exits 0 when every check passes, 1 when one
        fails, 2 on a usage error. Scripts/soak starts the emulator and the proxy and runs this.
          --emulator HOST:PORT   the Firestore emulator (writes and the final direct query)
          --proxy HOST:PORT      Scripts/fault-proxy in front of it (the feed's requests)
          --proxy-log FILE       the proxy's stderr, to count faults by kind
          --polls N              runQuery requests before the writer stops (default 1000)
          --documents N          documents in the collection at any time (default 40)
          --interval-ms N        poll interval in milliseconds (default 10)
          --write-ms N           pause between writes in milliseconds (default 25)
          --memory-baseline N    poll count of the resident memory baseline (default 100)
          --memory-tolerance P   allowed resident memory change after the baseline, percent (default 10)
          --project ID           emulator project (default: a fresh demo-soak-... project)
        """

    struct UsageError: Error { let message: String }

    init(arguments: [String]) throws(UsageError) {
        var rest = arguments[...]
        func value(_ flag: String) throws(UsageError) -> String {
            guard let next = rest.popFirst() else { throw UsageError(message: "\(flag) needs a value") }
            return next
        }
        func number(_ flag: String) throws(UsageError) -> Int {
            let text = try value(flag)
            guard let number = Int(text), number > 0 else {
                throw UsageError(message: "\(flag) needs a positive whole number, not \(text)")
            }
            return number
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--emulator": emulator = try value(flag)
            case "--proxy": proxy = try value(flag)
            case "--proxy-log": proxyLog = try value(flag)
            case "--polls": polls = try number(flag)
            case "--documents": documents = try number(flag)
            case "--interval-ms": intervalMilliseconds = try number(flag)
            case "--write-ms": writeMilliseconds = try number(flag)
            case "--memory-baseline": memoryBaselinePolls = try number(flag)
            case "--memory-tolerance": memoryTolerancePercent = Double(try number(flag))
            case "--project": project = try value(flag)
            default: throw UsageError(message: "unknown argument \(flag)")
            }
        }
        guard !emulator.isEmpty, !proxy.isEmpty else {
            throw UsageError(message: "--emulator and --proxy are required")
        }
        guard memoryBaselinePolls < polls else {
            throw UsageError(message: "--memory-baseline (\(memoryBaselinePolls)) must be below --polls (\(polls))")
        }
        if project.isEmpty { project = "demo-soak-" + String(UInt32.random(in: 0...UInt32.max), radix: 16) }
    }
}
