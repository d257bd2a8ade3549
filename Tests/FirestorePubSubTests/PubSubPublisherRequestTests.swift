import FirestoreREST
import Foundation
import Testing

@testable import FirestorePubSub

/// How ``PubSubPublisher/publish(_:to:)`` cuts messages into requests (one ordering key a request, in order, at most
/// 1,000 messages and 6,000,000 bytes), what it refuses before sending, and topic names. No network.
@Suite(.timeLimit(.minutes(1))) struct PubSubPublisherRequestTests {
    static func message(_ key: String, bytes: Int = 1) -> PubSubMessage {
        PubSubMessage(data: Data(repeating: 0x61, count: bytes), orderingKey: key)
    }

    @Test func eachOrderingKeyGetsRequestsOfItsOwnInOrder() {
        let messages = ["a", "b", "a", "c", "b", "a"].map { Self.message($0) }
        #expect(PubSubPublisher.requests(for: messages) == [[[0, 2, 5]], [[1, 4]], [[3]]])
    }

    @Test func aKeysMessagesAreCutAtAThousandAndAtSixMillionBytes() {
        let many = (0..<2_001).map { _ in Self.message("k") }
        #expect(PubSubPublisher.requests(for: many).map { $0.map(\.count) } == [[1_000, 1_000, 1]])
        let large = (0..<5).map { _ in Self.message("k", bytes: 2_500_000) }
        #expect(PubSubPublisher.requests(for: large) == [[[0, 1], [2, 3], [4]]])
        // One message over the request's budget still goes, alone.
        #expect(PubSubPublisher.requests(for: [Self.message("k", bytes: 7_000_000)]) == [[[0]]])
    }

    @Test func aMessageBreakingALimitIsNamed() {
        #expect(PubSubMessage(data: Data()).problem == "a message needs data or at least one attribute")
        #expect(
            Self.message(String(repeating: "k", count: 1_025)).problem
                == "ordering key is 1025 bytes; at most 1024")
        #expect(
            PubSubMessage(data: Data(), attributes: ["v": String(repeating: "x", count: 1_025)]).problem
                == "attribute \"v\" is 1025 bytes; at most 1024")
        #expect(Self.message("k").problem == nil)
    }

    @Test func aRefusedMessageStopsThePublishBeforeAnythingIsSent() async throws {
        let publisher = try PubSubPublisher.emulator(host: "127.0.0.1:9")
        let topic = try PubSubTopic("projects/p-1/topics/changes")
        await #expect(throws: FirestoreError.self) {
            _ = try await publisher.publish([Self.message("a"), PubSubMessage(data: Data())], to: topic)
        }
    }

    @Test func topicNamesFollowPubSubsRule() throws {
        #expect(try PubSubTopic("projects/demo-project/topics/changes").topicID == "changes")
        #expect(
            try PubSubTopic(projectID: "demo", topicID: "a.b~c+d%e_f-g").name == "projects/demo/topics/a.b~c+d%e_f-g")
        for bad in [
            "projects/p/topics/ab", "projects/p/topics/9abc", "projects/p/topics/goog-x", "projects/p/subs/abc",
            "topics/abc", "projects//topics/abc", "projects/p/topics/a b c",
        ] {
            #expect(throws: FirestoreError.self, "\(bad)") { try PubSubTopic(bad) }
        }
    }

    @Test func theRetryDelayGrowsByItsMultiplierToItsMaximum() {
        let settings = PubSubRetrySettings.publishDefaults
        #expect(settings.delay(after: 1) == .milliseconds(100))
        #expect(settings.delay(after: 2) == .milliseconds(130))
        #expect(settings.delay(after: 3) == .milliseconds(169))
        #expect(settings.delay(after: 40) == .seconds(60))
    }
}

/// Credentials that must not reach production Pub/Sub. No network.
@Suite(.timeLimit(.minutes(1))) struct PubSubPublisherCredentialsTests {
    @Test func aFirestoreEmulatorsCredentialsAreRefusedForProductionPubSub() throws {
        let db = try Firestore.emulator(host: "127.0.0.1:9", projectID: "p")
        #expect {
            _ = try PubSubPublisher(credentials: PubSubPublisher.credentials(from: db.credentials))
        } throws: { error in
            (error as? FirestoreError)?.code == .failedPrecondition
                && (error as? FirestoreError)?.message.contains("set PUBSUB_EMULATOR_HOST") == true
        }
        #expect(throws: FirestoreError.self) {
            _ = try PubSubPublisher(credentials: NoCredentials(), endpoint: "http://pubsub.example/v1/")
        }
        #expect(try PubSubPublisher(credentials: NoCredentials()).baseURL == "https://pubsub.googleapis.com/v1/")
    }
}
