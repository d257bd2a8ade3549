import FirestoreREST

extension PubSubPublisher {
    /// Creates `topic` (`PUT projects/P/topics/T`), retried as a publish is (``PubSubPublisher/retry``: the emulator
    /// answers `CANCELLED` now and then while other clients' connections reset).
    /// - Returns: `true` when it was created, `false` when it existed already (`ALREADY_EXISTS`; also when an attempt
    ///   that created it went unanswered and the next found it).
    /// - Throws: `FirestoreError`: the server's error (say, `PERMISSION_DENIED`), the transport's.
    @discardableResult
    public func createTopic(_ topic: PubSubTopic) async throws -> Bool {
        do {
            _ = try await sendRetried("PUT", topic.name, body: nil)
            return true
        } catch let error as FirestoreError where error.code == .alreadyExists {
            return false
        }
    }

    /// Creates `subscription` on `topic` (`PUT projects/P/subscriptions/S`), with message ordering when `ordered`
    /// (messages of one ordering key are delivered in publish order), and `ackDeadlineSeconds` (10 to 600); retried as
    /// ``createTopic(_:)`` is.
    /// - Returns: `true` when it was created, `false` when it existed already (`ALREADY_EXISTS`; not compared).
    /// - Throws: `FirestoreError`: the server's error, the transport's.
    @discardableResult
    public func createSubscription(
        _ subscription: PubSubSubscription, topic: PubSubTopic, ordered: Bool = true, ackDeadlineSeconds: Int = 60
    ) async throws -> Bool {
        let body: JSONValue = [
            "topic": .string(topic.name), "enableMessageOrdering": .bool(ordered),
            "ackDeadlineSeconds": .integer(Int64(ackDeadlineSeconds)),
        ]
        do {
            _ = try await sendRetried("PUT", subscription.name, body: body)
            return true
        } catch let error as FirestoreError where error.code == .alreadyExists {
            return false
        }
    }
}
