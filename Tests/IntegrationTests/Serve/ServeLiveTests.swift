import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `firestore-feed serve` against the emulator (issue 39), read by a plain SSE client: the list rebuilt from the
/// events equals the query after each write; a client that reconnects with `Last-Event-ID` (or `?lastEventId=`) gets
/// exactly the events it missed; without the token, 401; SIGTERM ends it with exit 0.
@Suite(.timeLimit(.minutes(2))) struct ServeLiveTests {
    /// Starts `serve` on a free port; the process and its port.
    static func serve(_ arguments: [String]) async throws -> (CLIProcess, Int) {
        let process = try CLIProcess(["serve"] + arguments + ["--port", "0"])
        let url = await process.stdout.lines(atLeast: 1, timeout: 30).first ?? ""
        guard url.hasPrefix("http://127.0.0.1:"), let port = Int(url.dropFirst(17).filter(\.isNumber)) else {
            throw EventStreamTestClient.Failure(
                description: "serve printed \"\(url)\": \(String(decoding: process.stderr.data, as: UTF8.self))")
        }
        return (process, port)
    }

    /// The query's documents now, as the stream carries them.
    static func expected(_ query: Query) async throws -> [JSONValue] {
        try await query.getDocuments().documents.compactMap(\.document).map { $0.restJSON() }
    }

    /// Waits until the list `client`'s events rebuild equals `query`'s result (a hang guard of 20 s); that list.
    @discardableResult
    static func rebuilt(_ client: EventStreamTestClient, equal query: Query) async throws -> RebuiltList {
        let expected = try await expected(query)
        let events = await client.events { events in (try? RebuiltList.from(events).documents) == expected }
        let list = try RebuiltList.from(events)
        #expect(list.documents == expected)
        return list
    }

    @Test func theStreamRebuildsTheQueryAndResumesExactlyAfterTheLastEventID() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("serve")
        let db = try Firestore.emulator(host: host, projectID: project)
        for (id, kcal) in [("apple", 52), ("fig", 74), ("kiwi", 61)] {
            try await db.document("fruits/\(id)").setData(["name": .string(id), "kcal": .integer(Int64(kcal))])
        }
        let query = db.collection("fruits").order(by: "kcal")
        let (process, port) = try await Self.serve([
            "fruits", "--order-by", "kcal", "--emulator", host, "--project", project, "--token", "s3cret",
        ])
        let bearer = ["Authorization": "Bearer s3cret"]

        // Without the token, or with another: 401, for the stream and the page.
        for (target, headers) in [
            ("/events", [:]), ("/events", ["Authorization": "Bearer wrong"]), ("/events?token=wrong", [:]),
            ("/", [:]),
        ] as [(String, [String: String])] {
            let refused = try await EventStreamTestClient.get(port: port, target, headers: headers)
            #expect(refused.status == 401, "\(target) \(headers)")
            #expect(refused.responseHead?.contains("WWW-Authenticate: Bearer") == true)
            refused.close()
        }
        let page = try await EventStreamTestClient.get(port: port, "/?token=s3cret")
        await page.waitForEnd()
        #expect(page.status == 200)
        #expect(page.body.contains(#"<ul id="list">"#))
        #expect(page.body.contains("function populateCell(document, element)"))

        let whole = try await EventStreamTestClient.get(port: port, "/events", headers: bearer)
        #expect(whole.status == 200)
        #expect(whole.responseHead?.contains("Content-Type: text/event-stream") == true)
        try await Self.rebuilt(whole, equal: query)
        // A move, an insert, a change in place, a removal: after each, the list equals the query.
        try await db.document("fruits/fig").updateData(["kcal": 40])
        try await Self.rebuilt(whole, equal: query)
        try await db.document("fruits/banana").setData(["name": "banana", "kcal": 89])
        try await Self.rebuilt(whole, equal: query)
        try await db.document("fruits/kiwi").updateData(["name": "Kiwi"])
        try await Self.rebuilt(whole, equal: query)
        try await db.document("fruits/apple").delete()
        let before = try await Self.rebuilt(whole, equal: query)

        // A client that left at event k, back after two writes with Last-Event-ID k: exactly the events after k.
        let left = try #require(before.lastID)
        try await db.document("fruits/cherry").setData(["name": "cherry", "kcal": 50])
        try await db.document("fruits/fig").delete()
        let after = try await Self.rebuilt(whole, equal: query)
        let missed = whole.events.filter { $0.id > left }
        #expect(missed.count >= 1)
        #expect(missed.map(\.kind).allSatisfy { $0 == "patch" })
        #expect(missed.map(\.id) == Array((left + 1)...(after.lastID ?? 0)))
        let back = try await EventStreamTestClient.get(
            port: port, "/events", headers: bearer.merging(["Last-Event-ID": String(left)]) { $1 })
        #expect(await back.events { $0.count >= missed.count } == missed)
        let backByQuery = try await EventStreamTestClient.get(
            port: port, "/events?token=s3cret&lastEventId=\(left)")
        #expect(await backByQuery.events { $0.count >= missed.count } == missed)
        var resumed = RebuiltList(documents: before.documents, lastID: left)
        for event in missed { try resumed.take(event) }
        #expect(resumed.documents == after.documents)
        // A new client (no id) gets one reset with the list as of the last event.
        let fresh = try await EventStreamTestClient.get(port: port, "/events", headers: bearer)
        let reset = await fresh.events { !$0.isEmpty }
        #expect(reset.map(\.kind) == ["reset"])
        #expect(reset.map(\.id) == [after.lastID ?? 0])
        #expect(try RebuiltList.from(reset).documents == after.documents)

        for client in [whole, back, backByQuery, fresh] { client.close() }
        kill(process.process.processIdentifier, SIGTERM)
        let result = await process.finish(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// A SIGTERM right after serve printed its address is the graceful end (exit 0), not the default action (fc42,
    /// under load: status 15, the handler was installed after the address was printed).
    @Test func aSIGTERMRightAfterTheAddressIsPrintedExitsZero() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("serve-term")
        let process = try CLIProcess([
            "serve", "fruits", "--emulator", host, "--project", project, "--port", "0",
        ])
        let url = await process.stdout.lines(atLeast: 1, timeout: 30).first ?? ""
        #expect(url.hasPrefix("http://127.0.0.1:"), "\(String(decoding: process.stderr.data, as: UTF8.self))")
        kill(process.process.processIdentifier, SIGTERM)
        let result = await process.finish(timeout: 20)
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Started under a soft limit of 256 open files with `--max-clients 1000`, serve raises its soft limit to the
    /// 1,064 descriptors that need (1,000 sockets and 64 more), the hard limit allowing; otherwise to the hard limit,
    /// with a warning: a limit below the clients' would leave clients past it waiting in the listen queue.
    @Test func serveRaisesItsLimitOfOpenFilesToWhatMaxClientsNeeds() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("serve-nofile")
        let process = try CLIProcess(
            [
                "-c", #"ulimit -Sn 256 && exec "$0" "$@""#, CLIProcess.executable.path, "serve", "fruits", "--emulator",
                host, "--project", project, "--port", "0", "--max-clients", "1000",
            ], executable: URL(fileURLWithPath: "/bin/sh"))
        let url = await process.stdout.lines(atLeast: 1, timeout: 30).first ?? ""
        #expect(url.hasPrefix("http://127.0.0.1:"), "\(String(decoding: process.stderr.data, as: UTF8.self))")
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        let hard = limit.rlim_max == rlim_t.max ? Int.max : Int(limit.rlim_max)
        let limits = try String(contentsOfFile: "/proc/\(process.process.processIdentifier)/limits", encoding: .utf8)
        let openFiles = limits.split(separator: "\n").first { $0.hasPrefix("Max open files") }
        let soft = openFiles.flatMap { $0.split(separator: " ").dropFirst(3).first }.flatMap { Int($0) }
        #expect(soft == min(1_064, hard), "\(openFiles ?? "no Max open files line")")
        kill(process.process.processIdentifier, SIGTERM)
        let result = await process.finish(timeout: 20)
        #expect(result.status == 0)
        #expect(result.stderr.contains("serve: warning: at most") == (hard < 1_064), "\(result.stderr)")
    }

    /// Past `--max-clients` a connection gets 503 with `Retry-After`.
    @Test func pastTheClientLimitAConnectionGets503() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("serve-limit")
        let (process, port) = try await Self.serve([
            "fruits", "--emulator", host, "--project", project, "--max-clients", "1",
        ])
        let first = try await EventStreamTestClient.get(port: port, "/events")
        #expect(first.status == 200)
        _ = await first.events { !$0.isEmpty }
        let second = try await EventStreamTestClient.get(port: port, "/events")
        #expect(second.status == 503)
        #expect(second.responseHead?.contains("Retry-After: 1") == true)
        await second.waitForEnd()
        #expect(second.body == "Service Unavailable: 1 clients are connected, the most allowed (--max-clients)\n")
        first.close()
        kill(process.process.processIdentifier, SIGTERM)
        #expect(await process.finish(timeout: 20).status == 0)
    }
}
