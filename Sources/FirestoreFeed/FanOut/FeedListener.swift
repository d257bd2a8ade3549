import FirestoreREST

/// One consumer of a feed, as every source keeps it: the buffer it is fed through, its event handler, the policy it
/// polls with (for a fallback from Listen), and what it must be told with its next snapshot.
struct FeedListener: Sendable {
    let buffer: CoalescingBuffer<QuerySnapshot>
    let onEvent: (@Sendable (FeedEvent) -> Void)?
    /// How this listener polls, if it polls (or falls back to polling).
    let policy: PollingPolicy
    /// Whether the next snapshot handed to this listener is expressed relative to the last one it received rather
    /// than to the feed's previous snapshot (a listener that comes from another feed: back from polling, or
    /// resuming a suspended target); ``announcement`` goes with it.
    var rebaseNext = false
    /// An event the listener hears just before its next snapshot (`FeedEvent.listenRestored`).
    var announcement: FeedEvent?
}
