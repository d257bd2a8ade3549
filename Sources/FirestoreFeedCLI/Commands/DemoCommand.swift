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
        summary: """
            seed a collection of its own, watch it while writing, print the feed
            (--replay: the same from a recording, with no emulator)
            """,
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
        try connection.validate()
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
            try await DemoScenario.play(
                firestore, collection: collection ?? replayed?.recordedCollection ?? Self.defaultCollection,
                interval: interval, format: format, source: replayed?.source ?? source ?? .listen,
                pool: replayed == nil ? .shared : PollerPool(clock: ImmediateClock()))
        }
    }
}
