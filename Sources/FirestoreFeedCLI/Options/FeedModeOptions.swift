import FirestoreFeed
import FirestoreREST

/// `watch --mode listen|keys|full|delta` and `--delta-field FIELD`: how the watch gets its changes, as a
/// ``FeedSource`` (``FeedSource/init(name:deltaField:)`` reads the same names).
struct FeedModeOptions: Sendable {
    static let options: [OptionSpec] = [
        .value(
            "--mode", "listen|keys|full|delta",
            help: """
                listen (default): Firestore's Listen stream, changes within
                milliseconds, billed only for what changed (polls in keys mode,
                with a note, where it cannot be used); keys: poll names and
                versions, then fetch only changed documents; full: poll whole
                documents; delta: poll only documents whose --delta-field moved,
                plus a count (every writer must set the field to the server time)
                """),
        .value("--delta-field", "FIELD", help: "the tracking field of --mode delta (default updatedAt)"),
    ]

    /// The tracking field of `--mode delta` when none is given.
    static let defaultDeltaField = "updatedAt"

    /// The source `--mode` names (`listen` when none), with `--delta-field` for delta.
    let source: FeedSource
    /// Whether `--delta-field` was given.
    let deltaFieldGiven: Bool

    /// - Throws: ``ValidationError`` for an unknown mode or a tracking field that is not a field path.
    init(parsing reader: ArgumentReader) throws(ValidationError) {
        let name = reader.value("--mode") ?? "listen"
        let deltaField = reader.value("--delta-field")
        deltaFieldGiven = deltaField != nil
        if name == "delta" {
            let field = deltaField ?? Self.defaultDeltaField
            do {
                _ = try FieldPath(quoted: field)
            } catch {
                throw ValidationError("--delta-field \"\(field)\": \(error.message)")
            }
            source = .poll(.delta(field: field))
        } else if FeedSource.names.contains(name), let source = FeedSource(name: name) {
            self.source = source
        } else {
            throw ValidationError("--mode \"\(name)\": expected listen, keys, full or delta")
        }
    }

    /// - Throws: ``ValidationError`` for `--delta-field` with another mode than delta.
    func validate() throws(ValidationError) {
        guard deltaFieldGiven else { return }
        if case .poll(.delta) = source { return }
        throw ValidationError("--delta-field needs --mode delta")
    }
}
