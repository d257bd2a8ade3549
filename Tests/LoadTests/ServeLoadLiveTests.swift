import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Issue 39's load: `firestore-feed serve` on the emulator with 2,000 concurrent server-sent-events clients on
/// loopback (`Scripts/sse-load-client`, aiohttp), while 10,000 writes land, 30% of the connections dropped at random
/// moments during the writes and reopened by the clients themselves with their `Last-Event-ID`. The rule: every
/// client's list, rebuilt from its own events, equals the query at the end (names and data, in order); every client's
/// ids strictly increase and every patch follows the id before (0 duplicate applies, 0 gaps); exactly the planned 600
/// drops happened, and every close (a drop, or serve cutting a client that did not read for its send timeout, which a
/// starved client on a loaded machine can be) was reopened once; no connection thread is left once the clients are
/// gone. Printed, never asserted: the closes by serve, commit-to-client latency p50/p99 and the serve process's memory
/// per idle client.
///
/// A write is one document's set, update or delete; the writes go in 500 commits of 20 (distinct documents of 400
/// names, chosen by a seeded generator), so the emulator takes them in seconds. 50 to 95 s on a shared two-core machine.
@Suite(.timeLimit(.minutes(6))) struct ServeLoadLiveTests {
    /// 2,000, or `FIRESTORE_FEED_SERVE_LOAD_CLIENTS` (to measure the latency with fewer clients).
    static let clients =
        ProcessInfo.processInfo.environment["FIRESTORE_FEED_SERVE_LOAD_CLIENTS"].flatMap { Int($0) }.map {
            max(10, $0)
        } ?? 2_000
    static let drops = clients * 3 / 10  // 30% of the clients
    static let commits = 500
    static let writesPerCommit = 20
    static let names = 400

    @Test func twoThousandClientsRebuildTheQueryThroughDropsAndTenThousandWrites() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let python = try ScriptedGRPCServer.python()
        let project = EmulatorEnvironment.uniqueProjectID("serve-load")
        let db = try Firestore.emulator(host: host, projectID: project)
        let query = db.collection("items").order(by: "rank")

        // Room for every client, and for every dropped one's old connection not yet noticed gone, so no reconnect is
        // refused; a client buffer above the number of events, so no client is cut; a replay log that holds every
        // event, so every reconnect resumes with patches. (serve raises its own limit of open files to what
        // --max-clients needs.)
        let serve = try CLIProcess([
            "serve", "items", "--order-by", "rank", "--emulator", host, "--project", project, "--port", "0",
            "--max-clients", String(Self.clients + Self.drops + 100), "--client-buffer", "10000",
            "--replay-events", "10000",
        ])
        let url = await serve.stdout.lines(atLeast: 1, timeout: 30).first ?? ""
        let port = try #require(
            url.hasPrefix("http://127.0.0.1:") ? Int(url.dropFirst(17).filter(\.isNumber)) : nil,
            "serve printed \"\(url)\": \(String(decoding: serve.stderr.data, as: UTF8.self))")
        let pid = serve.process.processIdentifier
        let idle = try ServeProcessStatus(pid: pid)

        let load = try LoadClient(
            python: python,
            arguments: [
                "--port", String(port), "--clients", String(Self.clients), "--drops", String(Self.drops),
                "--commits", String(Self.commits), "--seed", "39", "--timeout", "240",
            ])
        defer { load.stop() }
        let ready = try await load.line(timeout: 120)
        try #require(ready?["event"] == "ready", "sse-load-client: \(load.errors)")
        let connected = try ServeProcessStatus(pid: pid)

        var generator = SplitMix64(seed: 39)
        var present = Set<Int>()
        var written = 0
        for commit in 1...Self.commits {
            let batch = db.batch()
            var chosen = Set<Int>()
            while chosen.count < Self.writesPerCommit {
                chosen.insert(Int.random(in: 0..<Self.names, using: &generator))
            }
            for key in chosen.sorted() {
                written += 1
                let document = db.document("items/d\(key)")
                let fields: [String: FieldValue] = [
                    "rank": .integer(Int64.random(in: 0..<100_000, using: &generator)), "n": .integer(Int64(written)),
                ]
                if !present.contains(key) {
                    try batch.setData(fields, forDocument: document)
                    present.insert(key)
                } else if Int.random(in: 0..<5, using: &generator) > 0 {
                    try batch.updateData(fields, forDocument: document)
                } else {
                    try batch.deleteDocument(document)
                    present.remove(key)
                }
            }
            try await batch.commit()
            try load.send("commit \(commit)")
        }
        #expect(written == 10_000)

        let expected = try await query.getDocuments().documents.compactMap(\.document).map { $0.restJSON() }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("serve-load-\(UUID().uuidString).json")
        try Data(JSONValue.array(expected).serializedString().utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try load.send("final \(file.path)")
        let report = try #require(try await load.line(timeout: 300), "sse-load-client: \(load.errors)")

        #expect(report["timedOut"] == .bool(false))
        #expect(report["planned"] == .integer(Int64(Self.drops)))
        let rows = report["clients"]?.arrayValue ?? []
        let lists = report["lists"]?.objectValue ?? [:]
        #expect(rows.count == Self.clients)
        #expect(lists.count == 1)
        for (digest, list) in lists { #expect(list.arrayValue == expected, "list \(digest)") }
        func total(_ key: String) -> Int64 {
            rows.reduce(0) { sum, row in
                guard case .integer(let value)? = row[key] else { return sum }
                return sum + value
            }
        }
        var patchCounts = Set<JSONValue>()
        for (index, row) in rows.enumerated() {
            #expect(row["list"].flatMap { $0.stringValue.flatMap { lists[$0] } } != nil, "client \(index): no list")
            #expect(row["increasing"] == .bool(true), "client \(index): \(row)")
            #expect(row["errors"] == .array([]), "client \(index): \(row)")
            // Each client's only reset is its first event; every reconnect resumed with the patches it missed.
            #expect(row["resets"] == .integer(1), "client \(index): \(row)")
            // Every close, the client's planned drop or the server's (a client that did not read for serve's send
            // timeout is cut: a starved client on a loaded machine), was followed by one reopening.
            #expect(
                row["openings"]?.integerValue
                    == 1 + (row["drops"]?.integerValue ?? 0) + (row["serverCloses"]?.integerValue ?? 0),
                "client \(index): \(row)")
            if let patches = row["patches"] { patchCounts.insert(patches) }
        }
        // Every client applied every patch once: the same number for all.
        #expect(patchCounts.count == 1, "patches per client: \(patchCounts)")
        #expect(total("duplicates") == 0)
        #expect(total("gaps") == 0)
        #expect(total("drops") == Int64(Self.drops))
        #expect(total("openings") == Int64(Self.clients + Self.drops) + total("serverCloses"))
        #expect(total("refusals") == 0)

        load.stop()
        // Every connection's thread ends once its client is gone.
        let released = await eventually(seconds: 60) { (try? ServeProcessStatus(pid: pid).connectionThreads) == 0 }
        #expect(released, "connection threads left: \(String(describing: try? ServeProcessStatus(pid: pid)))")

        let latency = report["latency"]
        print(
            "serve load: \(Self.clients) clients, \(written) writes in \(Self.commits) commits, \(Self.drops) drops, "
                + "\(total("serverCloses")) closed by serve (send timeout); "
                + "\(patchCounts.first?.integerValue.map(String.init) ?? "?") patches per client; "
                + "commit-to-client latency (document updateTime to the client's read, clients never dropped) "
                + "p50 \(Self.milliseconds(latency?["p50"])) ms, p99 \(Self.milliseconds(latency?["p99"])) ms; "
                + "serve memory per idle client \((connected.residentKiB - idle.residentKiB) / Self.clients) KiB "
                + "(VmRSS \(idle.residentKiB) KiB with 0 clients, \(connected.residentKiB) KiB with \(Self.clients); "
                + "threads \(idle.threads) -> \(connected.threads))")

        kill(pid, SIGTERM)
        let result = await serve.finish(timeout: 30)
        #expect(result.status == 0, "\(result.stderr.suffix(2_000))")
    }

    static func milliseconds(_ seconds: JSONValue?) -> String {
        switch seconds {
        case .double(let value)?: String(format: "%.0f", value * 1000)
        case .integer(let value)?: String(value * 1000)
        default: "?"
        }
    }
}

extension JSONValue {
    fileprivate var integerValue: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }
}
