import FirestoreREST

/// Which feed a checkpoint belongs to, as stored (`feeds.source`, `feeds.delta_field`): the Listen stream, or
/// polling in keys, full or delta mode. A checkpoint written by one source resumes any other (its documents and
/// `readTime` are the same kind of thing); the delta watermark is reused only by delta polling on the same field,
/// the resume token only by a Listen feed.
package enum CheckpointSource: Sendable, Hashable {
    case listen
    case poll(PollMode)

    /// The source of `snapshots(source:mode:...)`: `mode`, when given, wins as it does there.
    init(source: FeedSource, mode: PollMode?) {
        switch (mode, source) {
        case (let mode?, _): self = .poll(mode)
        case (nil, .keys): self = .poll(.keys)
        case (nil, .full): self = .poll(.fullDocuments)
        case (nil, .listen): self = .listen
        }
    }

    /// `listen`, `keys`, `full` or `delta`.
    var name: String {
        switch self {
        case .listen: "listen"
        case .poll(.keys): "keys"
        case .poll(.fullDocuments): "full"
        case .poll(.delta): "delta"
        }
    }

    /// The tracking field of delta polling.
    var deltaField: String? {
        guard case .poll(.delta(let field, _, _)) = self else { return nil }
        return field
    }
}
