/// Moving one feed's elements into a listener's buffer, on the listener's demand: the relay every derived feed uses
/// (a document feed from its query feed, a fallback from its poller).
enum FeedRelay {
    /// How ``pump(_:into:rebasingFirst:transform:)`` stopped.
    enum End {
        /// `source` ended.
        case sourceEnded
        /// The listener went away (its buffer no longer wants anything).
        case listenerLeft
    }

    /// Takes `source`'s elements one at a time, only while `buffer`'s consumer wants one (so a consumer that stopped
    /// asking stops the work behind it), and yields each transformed; with `rebasingFirst`, the first is expressed
    /// relative to what the consumer received before.
    /// - Throws: what `source` throws.
    static func pump<Source: AsyncSequence, Element: Sendable>(
        _ source: Source, into buffer: CoalescingBuffer<Element>, rebasingFirst: Bool = false,
        transform: (Source.Element) -> Element
    ) async throws -> End {
        var iterator = source.makeAsyncIterator()
        var isFirst = true
        while await buffer.wanted() {
            guard let element = try await iterator.next() else { return .sourceEnded }
            buffer.yield(transform(element), rebased: isFirst && rebasingFirst)
            isFirst = false
        }
        return .listenerLeft
    }
}
