import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Foundation

/// `firestore-feed demo`: the main job end to end. Seeds a collection of its own (``defaultCollection``, or
/// `--collection`; its old documents are deleted first), watches "where isFavourite == true, ordered by name",
/// applies a scripted sequence of writes, and prints every snapshot's changes and the resulting list.
package enum DemoCommand {
    static let spec = CommandSpec(
        usage: ["demo [options]", "demo --replay [FILE] [options]"],
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
        options: ConnectionOptions.options + DemoReplay.options + [
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
            .value("--format", "text|jsonl", help: "output format (default text)"),
        ])
    static let help = spec.help

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

    static func run(_ arguments: [String]) async throws(CLIError) {
        let reader = try ArgumentReader(arguments, command: spec)
        var source: FeedSource?
        if let modeText = reader.value("--mode") {
            guard let mode = FeedSource(name: modeText), mode == .listen || mode == .poll(.keys) else {
                throw .usage("--mode \"\(modeText)\": expected listen or keys", help: help)
            }
            source = mode
        }
        let replay = try DemoReplay(reader, help: help, source: source)
        guard reader.positionals.isEmpty || replay != nil else { throw .usage("demo takes no arguments", help: help) }
        let firestore: Firestore
        if let replay {
            firestore = try replay.firestore()
        } else {
            firestore = try await ConnectionOptions.firestore(reader, help: help)
        }
        let collection = reader.value("--collection") ?? replay?.recordedCollection ?? defaultCollection
        var interval = Duration.milliseconds(200)
        if let text = reader.value("--interval") {
            guard let seconds = SecondsArgument.seconds(text), seconds.isFinite, seconds >= 0.01, seconds <= 60 else {
                throw .usage("--interval \"\(text)\": expected seconds from 0.01 to 60", help: help)
            }
            interval = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        let formatText = reader.value("--format") ?? "text"
        guard let format = OutputFormat(rawValue: formatText) else {
            throw .usage("--format \"\(formatText)\": expected text or jsonl", help: help)
        }
        try await CLIError.runtimeErrors {
            if let replay { Console.error("demo: replaying \(replay.path) (a recorded session; no emulator)") }
            // Replayed, the feed polls without sleeping: the transport gives the pace.
            try await play(
                firestore, collection: collection, interval: interval, format: format,
                source: replay?.source ?? source ?? .listen,
                pool: replay == nil ? .shared : PollerPool(clock: ImmediateClock()))
        }
    }

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
}
