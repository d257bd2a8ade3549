import FirestoreREST

extension FirestoreError {
    /// The start of every publish error's message: `Pub/Sub publish to TOPIC: `, so that a report (the CLI's hints
    /// of the Firestore connection among them) never takes it for Firestore's.
    static func publishPrefix(_ topic: PubSubTopic) -> String { "Pub/Sub publish to \(topic): " }

    /// This error with its message naming Pub/Sub and `topic` (once), and for a missing topic how to make it.
    func publishing(to topic: PubSubTopic) -> FirestoreError {
        var error = self
        let prefix = Self.publishPrefix(topic)
        guard !message.hasPrefix("Pub/Sub publish to \(topic)") else { return error }
        error.message = prefix + message
        if code == .notFound {
            error.message += " (create it first: PubSubPublisher.createTopic, or publish --create-topic)"
        }
        return error
    }
}
