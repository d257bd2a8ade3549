import FirestoreFeed
import FirestoreREST

extension FeedEvent {
    /// The `onRetry` of ``PubSubPublisher/publish(_:to:onRetry:)`` that tells `onEvent` each retry as
    /// ``FeedEvent/publishFailed(_:retryIn:)``; `nil` without a handler.
    package static func publishRetries(
        to onEvent: (@Sendable (FeedEvent) -> Void)?
    ) -> (@Sendable (FirestoreError, Duration) -> Void)? {
        guard let onEvent else { return nil }
        return { error, delay in onEvent(.publishFailed(error, retryIn: delay)) }
    }
}
