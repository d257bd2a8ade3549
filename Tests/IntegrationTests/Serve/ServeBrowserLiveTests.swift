import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `firestore-feed serve`'s page in a real browser (issue 39): headless Chromium loads it, the test writes to the
/// emulator, and after each write the page's `<ul id="list">` holds the query's documents in order (the page's
/// JavaScript applying the `patch` events); a page opened at `?lastEventId=` the list's first id replays every patch
/// and ends with the same list; when the server restarts, the page reconnects by itself and goes on. The window is
/// saved as `.build/screenshots/live-list.png` (README's picture is a copy of one: docs/images/live-list.png).
@Suite(.timeLimit(.minutes(2))) struct ServeBrowserLiveTests {
    static let screenshot = PythonServerProcess.root.appendingPathComponent(".build/screenshots/live-list.png")

    /// The full names of `query`'s documents now, in order.
    static func names(_ query: Query) async throws -> [String] {
        try await query.getDocuments().documents.compactMap(\.document).map(\.name)
    }

    @Test func thePageShowsTheQueryAfterEachWrite() async throws {
        let host = try EmulatorEnvironment.requireHost()
        _ = try HeadlessPage.chromiumPath()
        let project = EmulatorEnvironment.uniqueProjectID("serve-browser")
        let db = try Firestore.emulator(host: host, projectID: project)
        let fruits: [(String, String, Int, String)] = [
            ("apple", "Apple", 52, "red"), ("banana", "Banana", 89, "yellow"), ("fig", "Fig", 74, "purple"),
            ("kiwi", "Kiwi", 61, "green"),
        ]
        for (id, name, kcal, color) in fruits {
            try await db.document("fruits/\(id)").setData([
                "name": .string(name), "kcal": .integer(Int64(kcal)), "color": .string(color),
            ])
        }
        let query = db.collection("fruits").order(by: "kcal")
        let (serve, port) = try await ServeLiveTests.serve([
            "fruits", "--order-by", "kcal", "--emulator", host, "--project", project, "--token", "s3cret",
        ])
        let page = try HeadlessPage(url: "http://127.0.0.1:\(port)/?token=s3cret", height: 420)
        var expected = try await Self.names(query)
        #expect(expected.count == 4)
        _ = try await page.state { $0.state == "live" && $0.names == expected }

        // A move (fig below apple), an insert, a change in place, a removal.
        try await db.document("fruits/fig").updateData(["kcal": 40])
        expected = try await Self.names(query)
        _ = try await page.state { $0.names == expected }
        try await db.document("fruits/cherry").setData(["name": "Cherry", "kcal": 50, "color": "red"])
        expected = try await Self.names(query)
        _ = try await page.state { $0.names == expected }
        try await db.document("fruits/kiwi").updateData(["color": "gold"])
        let changed = try await page.state { state in state.texts.contains { $0.contains("gold") } }
        #expect(changed.names == expected)
        try await db.document("fruits/banana").delete()
        expected = try await Self.names(query)
        let final = try await page.state { $0.names == expected }
        #expect(final.state == "live")
        #expect(final.names.map { $0.split(separator: "/").last ?? "" } == ["fig", "cherry", "apple", "kiwi"])
        #expect(final.texts.first { $0.hasPrefix("kiwi") }?.contains("colorgold") == true)

        try FileManager.default.createDirectory(
            at: Self.screenshot.deletingLastPathComponent(), withIntermediateDirectories: true)
        try await page.screenshot(to: Self.screenshot.path)
        let png = try Data(contentsOf: Self.screenshot)
        #expect(png.prefix(8) == Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]))
        await page.close()

        // From the empty list's event (serve names it on stderr): every patch since the first snapshot, applied by the
        // page in order.
        let firstID = try #require(
            String(decoding: serve.stderr.data, as: UTF8.self).components(separatedBy: "numbered from ").dropFirst()
                .first.map { String($0.prefix { $0.isNumber }) })
        let replaying = try HeadlessPage(url: "http://127.0.0.1:\(port)/?token=s3cret&lastEventId=\(firstID)")
        let replayed = try await replaying.state { $0.names == expected }
        #expect(replayed.texts == final.texts)

        // The server goes away and comes back on the same port (its ids start over): the page says it is
        // reconnecting, its EventSource reconnects by itself, and the list goes on with the next write.
        kill(serve.process.processIdentifier, SIGTERM)
        #expect(await serve.finish(timeout: 20).status == 0)
        _ = try await replaying.state { $0.state == "reconnecting" }
        let restarted = try CLIProcess([
            "serve", "fruits", "--order-by", "kcal", "--emulator", host, "--project", project, "--token", "s3cret",
            "--port", String(port),
        ])
        #expect(await restarted.stdout.lines(atLeast: 1, timeout: 30).first == "http://127.0.0.1:\(port)/")
        try await db.document("fruits/date").setData(["name": "Date", "kcal": 282, "color": "brown"])
        expected = try await Self.names(query)
        let resumed = try await replaying.state { $0.state == "live" && $0.names == expected }
        #expect(resumed.names.last?.hasSuffix("/fruits/date") == true)
        await replaying.close()
        kill(restarted.process.processIdentifier, SIGTERM)
        #expect(await restarted.finish(timeout: 20).status == 0)
    }
}
