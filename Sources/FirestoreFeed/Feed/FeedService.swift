/// A long-running feed in swift-service-lifecycle's `Service` shape (`protocol Service: Sendable { func run() async
/// throws }`): ``run()`` hands each snapshot to the handler it was made with until its task is cancelled, then
/// finishes the snapshot in hand, acknowledges it, writes the checkpoint, releases what it holds and returns
/// normally.
///
/// Made by `QueryRepresentable.service(source:interval:policy:checkpoint:key:onEvent:handler:)` (a checkpointed
/// feed) and ``FeedGroup/service(_:)`` (a feed group member). The package does not depend on swift-service-lifecycle;
/// in an app that does, the adapter is a `Service` whose `run()` is `try await cancelWhenGracefulShutdown { try await
/// feed.run() }`, or with a group that cancels on SIGTERM one line, `extension FeedService: @retroactive Service {}`
/// (<doc:RunningInAService>).
public struct FeedService: Sendable {
    private let body: @Sendable () async throws -> Void

    /// A service whose ``run()`` runs `body`.
    init(_ body: @escaping @Sendable () async throws -> Void) {
        self.body = body
    }

    /// Runs the feed until its task is cancelled, then stops gracefully and returns normally: the handler's call for
    /// the snapshot in hand runs to its end (it does not see the cancellation), the snapshot is acknowledged and its
    /// checkpoint written, the feed's key or leases are released. Each snapshot is handled at least once: one whose
    /// handler did not return is delivered again by the next run.
    /// - Throws: what the handler throws (the feed ends first, its snapshot not acknowledged); the feed's permanent
    ///   error (`FirestoreError`: a refused query, a damaged checkpoint store, a shut-down client, ...).
    public func run() async throws {
        try await body()
    }
}
