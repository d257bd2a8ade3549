import FirestoreFeed
import FirestoreREST

/// The demo's scenario: four fruits seeded, a watched query ("where isFavourite == true, ordered by name"), and
/// five scripted writes, each followed by the snapshot it causes. `demo` plays it live or on a recording, and
/// `Scripts/record` records `Recordings/demo-listen.json` and `Recordings/demo.json` with it.
package enum DemoScenario {
    struct Step {
        let title: String
        let write: @Sendable (CollectionReference) async throws -> Void
    }

    static let seeds: [(id: String, fields: [String: FirestoreValue])] = [
        ("apple", ["name": "Apple", "color": "red", "isFavourite": true, "calories": 52]),
        ("banana", ["name": "Banana", "color": "yellow", "isFavourite": true, "calories": 89]),
        ("cherry", ["name": "Cherry", "color": "red", "isFavourite": false, "calories": 50]),
        ("date", ["name": "Date", "color": "brown", "isFavourite": true, "calories": 282]),
    ]

    static let steps: [Step] = [
        Step(title: "add a favourite: fig") { fruits in
            try await fruits.document("fig").setData(
                ["name": "Fig", "color": "purple", "isFavourite": true, "calories": 74])
        },
        Step(title: "modify apple: color red -> green") { fruits in
            try await fruits.document("apple").updateData(["color": "green"])
        },
        Step(title: "rename banana to 'Plantain' (moves it after Fig)") { fruits in
            try await fruits.document("banana").updateData(["name": "Plantain"])
        },
        Step(title: "unfavourite date (it leaves the query)") { fruits in
            try await fruits.document("date").updateData(["isFavourite": false])
        },
        Step(title: "delete fig") { fruits in
            try await fruits.document("fig").delete()
        },
    ]

    /// The demo's scenario on `firestore`: seeds `collection` (deleting its documents first), watches (`source`:
    /// the Listen stream, or polling in keys mode through `pool`), writes each step and prints every snapshot in
    /// `format`. `Scripts/record` records `Recordings/demo-listen.json` and `Recordings/demo.json` with it.
    /// - Throws: what the writes or the feed throw; exits 1 when no snapshot comes within 30 s.
    package static func play(
        _ firestore: Firestore, collection: String = DemoReplay.recordingsCollection, interval: Duration,
        format: OutputFormat, source: FeedSource = .listen,
        pool: PollerPool = .shared
    ) async throws {
        let fruits = firestore.collection(collection)
        for old in try await fruits.listDocuments() { try await old.reference.delete() }
        for seed in seeds { try await fruits.document(seed.id).setData([String: FieldValue](seed.fields)) }
        await note("seeded \(seeds.count) fruits: " + seeds.map(\.id).joined(separator: ", "), format)
        await note("watching: \(collection) where isFavourite == true, ordered by name", format)

        let query = fruits.whereField("isFavourite", isEqualTo: true).order(by: "name")
        let policy = PollingPolicy(interval: interval)
        let feed =
            source == .listen
            ? query.snapshots(source: .listen, policy: policy, onEvent: Console.report)
            : pool.snapshots(of: query, policy: policy, onEvent: Console.report)
        var iterator = feed.makeAsyncIterator()
        var number = 0
        func nextSnapshot() async throws {
            let watchdog = Task {
                try await Task.sleep(for: .seconds(30))
                Console.error("error: deadline-exceeded: no snapshot within 30 s")
                await FirestoreFeedTool.finish(1)
            }
            defer { watchdog.cancel() }
            guard let snapshot = try await iterator.next() else {
                throw FirestoreError(code: .cancelled, message: "the feed ended early")
            }
            number += 1
            await Console.output(format.snapshotLine(snapshot, number: number))
        }
        try await nextSnapshot()
        for step in steps {
            await note("\n> " + step.title, format)
            try await step.write(fruits)
            try await nextSnapshot()
        }
        await note("\ndone: \(number) snapshots", format)
    }

    /// A narration line: on stdout in text format, on stderr in jsonl so stdout stays pure JSON lines.
    static func note(_ line: String, _ format: OutputFormat) async {
        switch format {
        case .text: await Console.output(line)
        case .jsonl: Console.error(line)
        }
    }
}
