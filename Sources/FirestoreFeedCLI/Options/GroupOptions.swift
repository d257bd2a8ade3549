import FirestoreFeed
import FirestoreREST

/// `watch --group NAME [--shards K] [--member ID] [--lease SECONDS] [--renew SECONDS]`: the watch as one member of a
/// feed group (``FeedGroup``).
struct GroupOptions: Sendable {
    static let options: [OptionSpec] = [
        .value(
            "--group", "NAME",
            help: """
                run as a member of feed group NAME (its leases under
                feedGroups/NAME): each shard of the query is delivered by one
                member at a time, with its "shard" and "generation" (watch's
                lines, publish's attributes); lease events go to stderr;
                SIGTERM releases the member's leases and exits 0
                """),
        .value("--shards", "K", help: "the shard count a new group is created with (1-1000; default: the stored one)"),
        .value("--member", "ID", help: "this member's ID in the group (default HOST-PID-RANDOM)"),
        .value("--lease", "SECONDS", help: "the group's lease length (default 15)"),
        .value("--renew", "SECONDS", help: "the renewal interval (default 5, at most half the lease)"),
    ]

    /// `--group NAME`, or `nil` for an ordinary watch.
    let name: String?
    let shards: Int?
    let member: String?
    let lease: Duration?
    let renew: Duration?

    init(parsing reader: ArgumentReader) throws(ValidationError) {
        name = reader.value("--group")
        shards = try reader.positiveInteger("--shards")
        member = reader.value("--member")
        lease = try reader.seconds("--lease", in: 1...3600)
        renew = try reader.seconds("--renew", in: 0.05...1800)
    }

    /// The group's options for `policy`.
    func options(policy: PollingPolicy) -> FeedGroupOptions {
        FeedGroupOptions(
            member: member, shards: shards, leaseDuration: lease ?? .seconds(15), renewInterval: renew ?? .seconds(5),
            policy: policy)
    }

    /// - Throws: ``ValidationError`` for group options without `--group`, an empty name, or options the group
    ///   refuses.
    func validate(mode: FeedModeOptions, checkpoint: CheckpointOptions) throws(ValidationError) {
        try validate()
        guard name != nil else { return }
        if mode.source != .listen { throw ValidationError("--group listens: it cannot be combined with --mode") }
        if checkpoint.path != nil {
            throw ValidationError("--group keeps each shard's checkpoint in Firestore: drop --checkpoint")
        }
    }

    /// The checks of every command with group options (`watch`, `mirror`).
    /// - Throws: ``ValidationError`` for group options without `--group`, an empty name, or options the group
    ///   refuses.
    func validate() throws(ValidationError) {
        guard let name else {
            if shards != nil || member != nil || lease != nil || renew != nil {
                throw ValidationError("--shards, --member, --lease and --renew need --group NAME")
            }
            return
        }
        if name.isEmpty || name.contains("/") { throw ValidationError("--group \"\(name)\": expected a document ID") }
        if let shards, shards > 1000 { throw ValidationError("--shards \(shards): at most 1000") }
        do {
            try options(policy: PollingPolicy()).check()
        } catch {
            throw ValidationError(error.message)
        }
    }
}
