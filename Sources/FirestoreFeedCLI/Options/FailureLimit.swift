/// `watch --max-failures N`: give up after N consecutive failed polls (or failed Listen streams) instead of
/// retrying with back-off forever. A ``FeedEvent/recovered`` or ``FeedEvent/listenRecovered(staleSince:)`` (a
/// reopened stream that reached a consistent snapshot) starts the count again; without the option the watch never
/// gives up.
package struct FailureLimit: Sendable {
    static let option = OptionSpec.value(
        "--max-failures", "N",
        help: """
            exit 1 after N consecutive failed polls or Listen streams (default:
            retry with back-off for ever)
            """)

    /// The limit, or `nil` for none.
    package let limit: Int?

    /// A limit of `limit` consecutive failures (`nil`: none).
    package init(limit: Int?) {
        self.limit = limit
    }

    /// - Throws: ``ValidationError`` for a value that is not a whole number from 1.
    init(parsing reader: ArgumentReader) throws(ValidationError) {
        limit = try reader.positiveInteger("--max-failures")
    }
}
