import FirestoreFeed
import FirestorePubSub
import FirestoreREST

/// `firestore-feed publish COLLECTION_PATH --topic projects/P/topics/T`: a long-running service that publishes each
/// document change of a query to a Pub/Sub topic, one message per change, ordered per document.
package struct PublishCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "publish",
        usage: [
            "COLLECTION_PATH --topic projects/P/topics/T [--checkpoint FILE] [options]",
            "COLLECTION_PATH --topic projects/P/topics/T --group NAME [options]",
        ],
        summary: "publish a query's changes to a Pub/Sub topic, one message per change",
        synopsis: "publish COLLECTION_PATH --topic TOPIC",
        abstract: """
            Publishes every document change of a query to a Pub/Sub topic until SIGTERM or SIGINT
            (then the snapshot in hand is published and checkpointed, and the command exits 0).
            Each change is one message: ordering key = the document's full name (an ordered
            subscription delivers one document's changes in order), data = the REST Document JSON
            (or {"name","removed":true}), attributes name, changeType, updateTime, readTime (and
            with --group shard and generation). A snapshot's checkpoint moves only after Pub/Sub
            accepted all its messages, so a restart may publish some again, never skip one: a
            consumer applies a message only if its updateTime is later than the one it holds for
            the name (or a removal it holds was seen at an earlier readTime). PUBSUB_EMULATOR_HOST (as Google's clients read it) names an emulator;
            without it, Pub/Sub in production with the Firestore connection's credentials
            (a service-account key is asked for the pubsub scope). Without --checkpoint or --group
            every start publishes the whole result again, and a document deleted while the command
            was down gets no removal: use --checkpoint for a service.
            """,
        options: ConnectionOptions.options + CassetteOptions.options + QueryOptions.options + [
            .value("--topic", "projects/P/topics/T", help: "the topic to publish to (required)"),
            .flag("--create-topic", help: "create the topic first when it does not exist"),
            .value(
                "--pubsub-protocol", "rest|grpc|automatic",
                help: "Pub/Sub's wire protocol for publishing (default automatic: gRPC, REST where HTTP/2 "
                    + "is refused; --protocol is Firestore's)"),
            .value(
                "--interval", "SECONDS",
                help: "time between polls with --mode keys|full|delta or after a fallback (default 1)"),
        ] + FeedModeOptions.options + [
            .flag(
                "--verbose",
                help: "print each published snapshot to stderr: messages, read time, lag behind it")
        ] + CheckpointOptions.options + GroupOptions.options + [FailureLimit.option])

    let query: QueryOptions
    /// `--topic`, as given.
    let topicName: String?
    let createTopic: Bool
    /// `--pubsub-protocol`, else ``PubSubProtocol/automatic`` (the library's default).
    let pubSubProtocol: PubSubProtocol
    let interval: Duration
    let mode: FeedModeOptions
    let verbose: Bool
    let checkpoint: CheckpointOptions
    let group: GroupOptions
    let failureLimit: FailureLimit
    let connection: FirestoreConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        query = try QueryOptions(parsing: reader, command: "publish")
        topicName = reader.value("--topic")
        createTopic = reader.has("--create-topic")
        if let name = reader.value("--pubsub-protocol") {
            guard let chosen = PubSubProtocol(rawValue: name) else {
                throw ValidationError("--pubsub-protocol \"\(name)\": expected rest, grpc or automatic")
            }
            pubSubProtocol = chosen
        } else {
            pubSubProtocol = .automatic
        }
        interval = try reader.seconds("--interval", in: 0.01...86_400) ?? .seconds(1)
        mode = try FeedModeOptions(parsing: reader)
        verbose = reader.has("--verbose")
        checkpoint = CheckpointOptions(parsing: reader)
        group = try GroupOptions(parsing: reader)
        failureLimit = try FailureLimit(parsing: reader)
        connection = try FirestoreConnection(parsing: reader)
    }

    /// The topic `--topic` names.
    /// - Throws: ``ValidationError`` when it is missing or not `projects/P/topics/T` with valid IDs.
    func topic() throws(ValidationError) -> PubSubTopic {
        guard let topicName else { throw ValidationError("publish needs --topic projects/PROJECT/topics/TOPIC") }
        do {
            return try PubSubTopic(topicName)
        } catch {
            throw ValidationError("--topic: \(error.message)")
        }
    }

    package func validate() throws(ValidationError) {
        _ = try topic()
        try mode.validate()
        try checkpoint.validate()
        try group.validate(mode: mode, checkpoint: checkpoint)
        try query.validate()
        try connection.validate()
    }
}
