import FirestoreREST
import Foundation

extension PubSubPublisher {
    /// The most messages one publish request carries (Pub/Sub's limit is 1,000).
    public static let maxMessagesPerRequest = 1_000
    /// The most bytes of messages' data and attributes one publish request carries, well under Pub/Sub's 10 MB
    /// request limit once base64 and JSON are added.
    public static let maxBytesPerRequest = 6_000_000

    /// Publishes `messages` to `topic` and returns their message IDs, in the order of `messages`, once the server has
    /// accepted every one.
    ///
    /// Messages go in requests of one ordering key each (Pub/Sub takes one ordering key per request), in the order
    /// given within a key, at most ``maxMessagesPerRequest`` and ``maxBytesPerRequest`` a request; requests of
    /// different keys are sent concurrently, at most ``maxRequestsInFlight`` at a time, and a key's requests one
    /// after another. Each request is retried by ``retry``.
    ///
    /// Not atomic: when it throws, some requests may have been accepted; publishing the same messages again delivers
    /// those twice (at least once). Complexity: O(n) in the messages' bytes.
    /// - Throws: `FirestoreError` `.invalidArgument` before sending anything when a message breaks a limit
    ///   (``PubSubMessage/problem``), naming it; the last error of a request that failed for good (say,
    ///   `NOT_FOUND` for a topic that does not exist, or a retryable code after ``PubSubRetrySettings/totalTimeout``),
    ///   its message starting `Pub/Sub publish to TOPIC: `.
    public func publish(_ messages: [PubSubMessage], to topic: PubSubTopic) async throws -> [String] {
        try await publish(messages, to: topic, onRetry: nil)
    }

    /// ``publish(_:to:)``, calling `onRetry` with each failed request's error (its message starting
    /// `Pub/Sub publish to TOPIC: `) and the delay before it is sent again, each time ``retry`` sends one again: how
    /// a feed's publish reports `FeedEvent.publishFailed(_:retryIn:)`, and a service says why it waits.
    /// - Throws: as ``publish(_:to:)``.
    public func publish(
        _ messages: [PubSubMessage], to topic: PubSubTopic,
        onRetry: (@Sendable (FirestoreError, Duration) -> Void)?
    ) async throws -> [String] {
        for (index, message) in messages.enumerated() {
            if let problem = message.problem {
                throw FirestoreError.invalidArgument(
                    "Pub/Sub message \(index) (ordering key \"\(message.orderingKey.prefix(80))\") for \(topic): "
                        + "\(problem); nothing published")
            }
        }
        do {
            return try await publishRequests(messages, to: topic, onRetry: onRetry)
        } catch let error as FirestoreError {
            throw error.publishing(to: topic)
        }
    }

    /// ``publish(_:to:)`` once its messages are checked.
    private func publishRequests(
        _ messages: [PubSubMessage], to topic: PubSubTopic, onRetry: (@Sendable (FirestoreError, Duration) -> Void)?
    ) async throws -> [String] {
        let groups = Self.requests(for: messages)
        var ids = [String](repeating: "", count: messages.count)
        // Each key's requests in order; keys concurrently, at most `maxRequestsInFlight` at a time.
        try await withThrowingTaskGroup(of: [(Int, String)].self) { group in
            var next = 0
            func start() {
                let requests = groups[next]
                next += 1
                group.addTask { [self] in
                    var published: [(Int, String)] = []
                    for request in requests {
                        let answer = try await publishRequest(
                            request.map { messages[$0] }, to: topic, onRetry: onRetry)
                        published += zip(request, answer)
                    }
                    return published
                }
            }
            while next < groups.count && next < maxRequestsInFlight { start() }
            while let done = try await group.next() {
                for (index, id) in done { ids[index] = id }
                if next < groups.count { start() }
            }
        }
        return ids
    }

    /// The requests of `messages`: per ordering key (in first-seen order), the indexes of its messages in order, cut
    /// at ``maxMessagesPerRequest`` and ``maxBytesPerRequest``.
    static func requests(for messages: [PubSubMessage]) -> [[[Int]]] {
        var keys: [String: Int] = [:]
        var groups: [[[Int]]] = []
        var bytes: [Int] = []
        for (index, message) in messages.enumerated() {
            let size =
                message.data.count + message.attributes.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count }
            let group: Int
            if let known = keys[message.orderingKey] {
                group = known
            } else {
                group = groups.count
                keys[message.orderingKey] = group
                groups.append([[]])
                bytes.append(0)
            }
            let open = groups[group].count - 1
            if !groups[group][open].isEmpty,
                groups[group][open].count >= maxMessagesPerRequest || bytes[group] + size > maxBytesPerRequest
            {
                groups[group].append([])
                bytes[group] = 0
            }
            groups[group][groups[group].count - 1].append(index)
            bytes[group] += size
        }
        return groups
    }

    /// One publish request of `messages` (one ordering key) over ``wireProtocol``, retried by ``retry``; their
    /// message IDs.
    func publishRequest(
        _ messages: [PubSubMessage], to topic: PubSubTopic,
        onRetry: (@Sendable (FirestoreError, Duration) -> Void)? = nil
    ) async throws -> [String] {
        var told: (@Sendable (FirestoreError, Duration) -> Void)?
        if let onRetry {
            told = { error, delay in onRetry(error.publishing(to: topic), delay) }
        }
        return try await retried(onRetry: told) {
            switch wireProtocol {
            case .rest: return try await publishOverREST(messages, to: topic)
            case .grpc: return try await publishOverGRPC(messages, to: topic)
            case .automatic: return try await publishAutomatically(messages, to: topic)
            }
        }
    }

    /// ``send(_:_:body:)`` retried by ``retried(_:)``. For a request that may go twice: a publish (at least once
    /// anyway), an admin call that answers `ALREADY_EXISTS` the second time, a pull.
    /// - Throws: the last `FirestoreError`; `CancellationError` when the task is cancelled between attempts.
    package func sendRetried(_ method: String, _ resource: String, body: JSONValue?) async throws -> JSONValue {
        try await retried { try await send(method, resource, body: body) }
    }

    /// `attempt` again while it fails with one of ``retry``'s codes (after its delays, a random half to whole of
    /// each, each told to `onRetry` before it is waited), until ``PubSubRetrySettings/totalTimeout``; then the last
    /// error. A request refused for want of HTTP/2
    /// is not retried: a server that answered gRPC's HTTP/2 with HTTP/1.x will not start speaking HTTP/2.
    /// - Throws: the last `FirestoreError`; `CancellationError` when the task is cancelled between attempts.
    func retried<Answer>(
        onRetry: (@Sendable (FirestoreError, Duration) -> Void)? = nil, _ attempt: () async throws -> Answer
    ) async throws -> Answer {
        let started = ContinuousClock.now
        var tries = 1
        while true {
            do {
                return try await attempt()
            } catch let error as FirestoreError where retry.retryableCodes.contains(error.code) && !error.lacksHTTP2 {
                let delay = retry.delay(after: tries)
                let drawn = delay * Double.random(in: 0.5...1.0)
                guard ContinuousClock.now - started + drawn < retry.totalTimeout else { throw error }
                onRetry?(error, drawn)
                try await Task.sleep(for: drawn)
                tries += 1
            }
        }
    }

    /// One publish request over gRPC, or over REST when ``PubSubProtocol/automatic`` says so (not retried here):
    /// REST on a transport other than `CurlTransport`, or within 5 minutes of a refusal of HTTP/2; a gRPC request
    /// refused for want of HTTP/2 (`lacksHTTP2`, `mayLackHTTP2`) or answered `UNIMPLEMENTED` is noted as a refusal and
    /// sent again over REST at once (it reached no Pub/Sub service).
    func publishAutomatically(_ messages: [PubSubMessage], to topic: PubSubTopic) async throws -> [String] {
        guard grpc.automaticUsesGRPC, grpc.state.triesGRPC() else {
            return try await publishOverREST(messages, to: topic)
        }
        do {
            return try await publishOverGRPC(messages, to: topic)
        } catch let error as FirestoreError where error.lacksHTTP2 || error.mayLackHTTP2 || error.code == .unimplemented
        {
            grpc.state.noteRefusal()
            return try await publishOverREST(messages, to: topic)
        }
    }

    /// One `topics.publish` request of `messages` (not retried here); their message IDs.
    func publishOverREST(_ messages: [PubSubMessage], to topic: PubSubTopic) async throws -> [String] {
        let body: JSONValue = ["messages": .array(messages.map(\.restJSON))]
        let answer = try await send("POST", topic.name + ":publish", body: body)
        guard let ids = answer["messageIds"]?.arrayValue?.compactMap(\.stringValue), ids.count == messages.count else {
            throw FirestoreError(
                code: .internal,
                message: "Pub/Sub publish to \(topic): the answer holds no message ID for each of the "
                    + "\(messages.count) messages: \(answer.serializedString().prefix(200))")
        }
        return ids
    }
}
