import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestorePubSub

extension Trait where Self == ConditionTrait {
    /// Skips the suite without `PUBSUB_EMULATOR_HOST`, except under CI (see `PubSubEnvironment`).
    static var needsPubSub: Self {
        .enabled(if: PubSubEnvironment.enabled, Comment(rawValue: PubSubEnvironment.skipMessage))
    }
}
