/// The last events of a live list, for a client that reconnects with `Last-Event-ID`: ``events(after:)`` gives
/// exactly the events after that id, or `nil` when the log no longer holds them all (the client then gets a
/// `reset`). Bounded: at most ``capacity`` events, the oldest dropped first.
struct LiveListReplayLog: Sendable {
    /// The most events kept.
    let capacity: Int
    private var events: [LiveListEvent] = []
    private var head = 0

    init(capacity: Int) { self.capacity = max(capacity, 1) }

    /// Adds `event`, the next in order, dropping the oldest beyond ``capacity``.
    mutating func append(_ event: LiveListEvent) {
        events.append(event)
        if events.count - head > capacity { head += 1 }
        // Compacted now and then, so appends stay O(1) amortized.
        if head > capacity {
            events.removeFirst(head)
            head = 0
        }
    }

    /// The events after `id`, oldest first: empty when `id` is the last; `nil` when `id` is older than the log's
    /// first event minus one, or newer than its last (not an id of this list).
    func events(after id: UInt64, last: UInt64) -> [LiveListEvent]? {
        if id == last { return [] }
        guard id < last, let first = events[head...].first, id + 1 >= first.id else { return nil }
        return Array(events[head...].drop { $0.id <= id })
    }
}
