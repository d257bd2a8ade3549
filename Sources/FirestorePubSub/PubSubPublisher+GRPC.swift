import FirestoreREST
import FirestoreWire

extension PubSubPublisher {
    /// One `google.pubsub.v1.Publisher/Publish` call of `messages` to `topic` on the gRPC channel (not retried here),
    /// once more with a new token after the server's `UNAUTHENTICATED` when the credentials can refresh; the message
    /// IDs in order.
    ///
    /// Metadata as Google's clients send it: `x-goog-request-params: topic=…` (percent-encoded), and for production
    /// `authorization` and the quota project's `x-goog-user-project`.
    /// - Throws: `FirestoreError`: the server's status (with its details), the channel's (`.unavailable` for a
    ///   connection that failed, `.deadlineExceeded` after ``PubSubGRPCChannel/timeout``), the credentials';
    ///   `.internal` for an answer of no message or more than one, or without an ID for each message; `.dataLoss`
    ///   for an answer that is not a `PublishResponse`.
    func publishOverGRPC(_ messages: [PubSubMessage], to topic: PubSubTopic) async throws -> [String] {
        let request = PubSubPublishRequest.encode(messages, to: topic)
        let channel = try grpc.get()
        typealias Attempt = (result: Result<[String], any Error>, refused: String?)
        return try await credentials.refreshingOnce { () async throws -> Attempt in
            var metadata = [HTTPHeader("x-goog-request-params", "topic=" + Firestore.queryEscaped(topic.name))]
            let authorization = isEmulator ? nil : try await credentials.authorizationHeader()
            if let authorization { metadata.append(HTTPHeader("authorization", authorization)) }
            if !isEmulator, let project = credentials.quotaProjectID {
                metadata.append(HTTPHeader("x-goog-user-project", project))
            }
            do {
                let call = try channel.makeRPCCall(
                    method: PubSubPublishRequest.method, request: request, metadata: metadata, timeout: grpc.timeout)
                var answers: [[UInt8]] = []
                for try await answer in call.responses { answers.append(answer) }
                guard answers.count == 1, let answer = answers.first else {
                    throw FirestoreError(
                        code: .internal,
                        message: "Pub/Sub publish to \(topic) over gRPC: \(answers.count) answers instead of 1")
                }
                let ids = try PubSubPublishRequest.messageIDs(answer)
                guard ids.count == messages.count else {
                    throw FirestoreError(
                        code: .internal,
                        message: "Pub/Sub publish to \(topic) over gRPC: \(ids.count) message IDs for "
                            + "\(messages.count) messages")
                }
                return (.success(ids), nil)
            } catch let error as FirestoreError where error.code == .unauthenticated && error.isServerStatus {
                return (.failure(error), authorization)
            }
        }.get()
    }
}
