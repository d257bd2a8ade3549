import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestorePubSub

/// Publishing to the Pub/Sub emulator (`Scripts/emulator --pubsub`) over REST and over gRPC: topics and subscriptions
/// made, messages delivered (pulled over REST) with their data, attributes and ordering keys, one key's messages in
/// order; a missing topic is `NOT_FOUND` over either. Retries against a scripted
/// HTTP server: retryable answers are sent again, others are not.
@Suite(.timeLimit(.minutes(2))) struct PubSubPublishLiveTests {
    @Test(.needsPubSub, arguments: PubSubProtocol.allCases)
    func messagesArriveWithTheirDataAttributesAndKeysInOrderPerKey(_ wireProtocol: PubSubProtocol) async throws {
        let publisher = try PubSubPublisher.testEmulator().using(protocol: wireProtocol)
        let (topic, subscription) = try await publisher.freshTopic("publish-\(wireProtocol)")
        #expect(try await publisher.createTopic(topic) == false)
        let messages = (0..<30).map { index in
            PubSubMessage(
                data: Data("m\(index)".utf8), attributes: ["index": String(index)], orderingKey: "key-\(index % 3)")
        }
        let ids = try await publisher.publish(messages, to: topic)
        #expect(Set(ids).count == 30)
        let pulled = try await publisher.pull(30, from: subscription)
        #expect(pulled.count == 30)
        #expect(Set(pulled.map(\.data)) == Set((0..<30).map { "m\($0)" }))
        for key in 0..<3 {
            // An ordered subscription: each key's messages in publish order.
            #expect(
                pulled.filter { $0.orderingKey == "key-\(key)" }.map(\.data)
                    == stride(from: key, to: 30, by: 3).map { "m\($0)" })
        }
        #expect(pulled.allSatisfy { $0.attributes["index"] == String($0.data.dropFirst()) })
    }

    @Test(.needsPubSub, arguments: PubSubProtocol.allCases)
    func aMissingTopicIsNotFoundAndNotRetried(_ wireProtocol: PubSubProtocol) async throws {
        let publisher = try PubSubPublisher.testEmulator().using(protocol: wireProtocol)
        let topic = try PubSubTopic(projectID: "demo-pubsub", topicID: PubSubEnvironment.uniqueID("missing"))
        await #expect {
            _ = try await publisher.publish([PubSubMessage(data: Data("x".utf8), orderingKey: "k")], to: topic)
        } throws: { error in
            // The message names Pub/Sub and the topic (not the CLI's Firestore connection), and how to make it.
            guard let error = error as? FirestoreError else { return false }
            return error.code == .notFound && error.message.hasPrefix("Pub/Sub publish to \(topic.name): ")
                && error.message.hasSuffix(" (create it first: PubSubPublisher.createTopic, or publish --create-topic)")
        }
    }

    @Test func aRetryableAnswerIsSentAgainAndAnotherIsNot() async throws {
        let unavailable = ScriptedHTTPServer.Answer(
            status: 503, chunks: [#"{"error":{"code":503,"message":"try again","status":"UNAVAILABLE"}}"#])
        let topic = try PubSubTopic("projects/demo-pubsub/topics/retried")
        let message = PubSubMessage(data: Data("x".utf8), orderingKey: "k")
        try await ScriptedHTTPServer.with([unavailable, unavailable, .init(chunks: [#"{"messageIds":["41"]}"#])]) {
            server in
            let publisher = try PubSubPublisher.emulator(
                host: "127.0.0.1:\(server.port)", retry: Self.fast, protocol: .rest)
            let told = Mutex<[String]>([])
            let ids = try await publisher.publish([message], to: topic) { error, delay in
                told.withLock { $0.append("\(error.code) \(error.message) \(delay <= .milliseconds(20))") }
            }
            #expect(ids == ["41"])
            // Each retry told before it is waited, with the topic in the message and the delay drawn (at most the
            // settings' 10 ms, then 20 ms).
            let retry = "unavailable Pub/Sub publish to projects/demo-pubsub/topics/retried: try again true"
            #expect(told.withLock { $0 } == [retry, retry])
            let received = try await server.received()
            #expect(
                received.map(\.path) == Array(repeating: "/v1/projects/demo-pubsub/topics/retried:publish", count: 3))
            #expect(Set(received.map(\.body)) == [#"{"messages":[{"data":"eA==","orderingKey":"k"}]}"#])
        }
        let notFound = ScriptedHTTPServer.Answer(
            status: 404, chunks: [#"{"error":{"code":404,"message":"Topic not found","status":"NOT_FOUND"}}"#])
        try await ScriptedHTTPServer.with([notFound, .init(chunks: [#"{"messageIds":["1"]}"#])]) { server in
            let publisher = try PubSubPublisher.emulator(
                host: "127.0.0.1:\(server.port)", retry: Self.fast, protocol: .rest)
            await #expect { _ = try await publisher.publish([message], to: topic) } throws: { error in
                (error as? FirestoreError)?.code == .notFound
            }
            #expect(try await server.received().count == 1)
        }
    }

    static let fast = PubSubRetrySettings(
        retryableCodes: PubSubRetrySettings.publishDefaults.retryableCodes, initialDelay: .milliseconds(10),
        multiplier: 2, maxDelay: .milliseconds(50), totalTimeout: .seconds(30))

    @Test func overGRPCARetryableStatusIsSentAgainWithTheTopicsRoutingHeader() async throws {
        let server = try await ScriptedGRPCServer.start(
            // Each call answered only once its request came, so both requests are certainly logged.
            script: #"{"others": [[{"awaitRequests": 1}, {"trailersOnly": {"status": 14, "message": "try again"}}], "#
                + #"[{"awaitRequests": 1}, {"respondHex": "0a023431"}, {"end": {"status": 0}}]]}"#)
        let publisher = try PubSubPublisher.emulator(host: server.host, retry: Self.fast, protocol: .grpc)
        let topic = try PubSubTopic("projects/demo-pubsub/topics/retried")
        let message = PubSubMessage(data: Data("x".utf8), orderingKey: "k")
        #expect(try await publisher.publish([message], to: topic) == ["41"])
        let logged = await eventuallyAsync(seconds: 30) { server.events("request").count >= 2 }
        #expect(logged)
        let calls = server.events("call")
        #expect(calls.map { $0["path"] } == Array(repeating: .string("/google.pubsub.v1.Publisher/Publish"), count: 2))
        #expect(
            calls.map { $0["headers"]?["x-goog-request-params"] }
                == Array(repeating: .string("topic=projects%2Fdemo-pubsub%2Ftopics%2Fretried"), count: 2))
        // PublishRequest {topic = 1: 35 bytes; messages = 2: {data = 1: "x", ordering_key = 5: "k"}}.
        let expected = "0a23" + topic.name.utf8.map { String(format: "%02x", $0) }.joined() + "12060a01782a016b"
        #expect(server.events("request").compactMap { $0["hex"]?.stringValue } == [expected, expected])
    }

    @Test func automaticFallsBackToRESTWhenTheServerRefusesHTTP2AndStaysThereAndGRPCFailsAtOnce() async throws {
        let topic = try PubSubTopic("projects/demo-pubsub/topics/fallback")
        let message = PubSubMessage(data: Data("x".utf8), orderingKey: "k")
        // An HTTP/1.1 server: the gRPC call's HTTP/2 preface gets an HTTP/1.1 answer (not logged as a request).
        try await ScriptedHTTPServer.with([
            .init(chunks: [#"{"messageIds":["41"]}"#]), .init(chunks: [#"{"messageIds":["42"]}"#]),
        ]) { server in
            let publisher = try PubSubPublisher.emulator(
                host: "127.0.0.1:\(server.port)", retry: Self.fast, protocol: .automatic)
            #expect(try await publisher.publish([message], to: topic) == ["41"])
            // Within 5 minutes of the refusal: REST at once, and so for a copy of the publisher.
            #expect(try await publisher.using(protocol: .automatic).publish([message], to: topic) == ["42"])
            #expect(try await server.received().map(\.path) == Array(repeating: "/v1/\(topic.name):publish", count: 2))
            // Over gRPC alone: the refusal ends the publish (retried for an hour, it would pass the suite's limit:
            // HTTP/2 will not come).
            var patient = Self.fast
            patient.totalTimeout = .seconds(3_600)
            let grpc = try PubSubPublisher.emulator(host: "127.0.0.1:\(server.port)", retry: patient, protocol: .grpc)
            await #expect {
                _ = try await grpc.publish([message], to: topic)
            } throws: { error in
                (error as? FirestoreError)?.lacksHTTP2 == true
            }
        }
    }

    @Test func anAdminCallAnsweredCancelledIsSentAgain() async throws {
        // What the emulator answers now and then while other clients' connections reset (fc30).
        let cancelled = ScriptedHTTPServer.Answer(
            status: 499,
            chunks: [
                #"{"error":{"code":499,"message":"call already cancelled. Use ServerCallStreamObserver.setOnCancelHandler() to disable this exception","status":"CANCELLED"}}"#
            ])
        let topic = try PubSubTopic("projects/demo-pubsub/topics/made")
        let created = ScriptedHTTPServer.Answer(chunks: [#"{"name":"projects/demo-pubsub/topics/made"}"#])
        try await ScriptedHTTPServer.with([cancelled, created]) { server in
            let publisher = try PubSubPublisher.emulator(host: "127.0.0.1:\(server.port)", retry: Self.fast)
            #expect(try await publisher.createTopic(topic) == true)
            #expect(
                try await server.received().map { "\($0.method) \($0.path)" }
                    == Array(repeating: "PUT /v1/projects/demo-pubsub/topics/made", count: 2))
        }
    }
}
