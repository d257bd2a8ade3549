import FirestoreFeed
import FirestoreREST
import FirestoreTesting

/// `firestore-feed demo`: the main job end to end. Seeds a collection of its own (``defaultCollection``, or
/// `--collection`; its old documents are deleted first), watches "where isFavourite == true, ordered by name",
/// applies a scripted sequence of writes, and prints every snapshot's changes and the resulting list.
package struct DemoCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "demo",
        usage: ["[options]", "--replay [FILE] [options]"],
        abstract: """
            Seeds a collection of its own, firestore-feed-demo (or --collection), whose old
            documents are DELETED first; watches "where isFavourite == true, ordered by name",
            then adds a favourite, modifies one, renames one so that the order changes,
            unfavourites one and deletes one, printing every snapshot's changes and the resulting
            list. The query is watched through Firestore's Listen stream (--mode keys polls
            instead). With --replay, the same scenario runs on a recorded session (Scripts/record
            made Recordings/demo-listen.json and, polling, Recordings/demo.json from the real
            emulator) and prints the same output with no emulator at all.
            """,
        options: ConnectionOptions.options + DemoReplayOptions.options + [
            .value(
                "--collection", "ID",
                help: """
                    the collection to seed, whose documents are deleted first
                    (default firestore-feed-demo; with --replay the recorded one)
                    """),
            .value(
                "--mode", "listen|keys",
                help: """
                    listen: the Listen stream (default); keys: polls every --interval.
                    With --replay FILE, the mode FILE was recorded in
                    """),
            .value("--interval", "SECONDS", help: "time between polls with --mode keys (default 0.2)"),
            OutputFormat.option(help: "output format (default text)"),
        ])

    /// The collection the demo seeds when none is named: its own, so that no data of the user's is deleted.
    package static let defaultCollection = "firestore-feed-demo"

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
        for seed in seeds { try await fruits.document(seed.id).setData([String: WriteValue](seed.fields)) }
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
            switch format {
            case .jsonl: await Console.output(OutputFormat.snapshotJSON(snapshot).serializedString())
            case .text: await Console.output(OutputFormat.snapshotText(snapshot, number: number))
            }
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

    /// The source `--mode` names, or `nil` for none (listen, or live the recording's).
    let source: FeedSource?
    let replay: DemoReplayOptions
    /// `--collection ID`.
    let collection: String?
    /// `--interval`: between polls in keys mode, 0.2 s by default.
    let interval: Duration
    let format: OutputFormat
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        if let name = reader.value("--mode") {
            guard let source = FeedSource(name: name), source == .listen || source == .poll(.keys) else {
                throw ValidationError("--mode \"\(name)\": expected listen or keys")
            }
            self.source = source
        } else {
            source = nil
        }
        replay = try DemoReplayOptions(parsing: reader)
        collection = reader.value("--collection")
        interval = try reader.seconds("--interval", in: 0.01...60) ?? .milliseconds(200)
        format = try OutputFormat(parsing: reader)
        connection = try FirestoreConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try replay.validate(emulator: connection.options.emulator)
    }

    package func run() async throws(CLIError) {
        let replayed = try replay.load(source: source)
        let firestore: Firestore
        if let replayed {
            firestore = try replayed.client()
        } else {
            firestore = try await connection.makeClient()
        }
        try await CLIError.runtimeErrors {
            if let replayed { Console.error("demo: replaying \(replayed.path) (a recorded session; no emulator)") }
            // Replayed, the feed polls without sleeping: the transport gives the pace.
            try await Self.play(
                firestore, collection: collection ?? replayed?.recordedCollection ?? Self.defaultCollection,
                interval: interval, format: format, source: replayed?.source ?? source ?? .listen,
                pool: replayed == nil ? .shared : PollerPool(clock: ImmediateClock()))
        }
    }
}
