import FirestoreREST
import Foundation
import Testing

@testable import FirestorePubSub

/// The protobuf of `google.pubsub.v1.Publisher/Publish` (`google/pubsub/v1/pubsub.proto`): a `PublishRequest` written
/// out byte by byte, and a `PublishResponse` read. No network.
@Suite(.timeLimit(.minutes(1))) struct PubSubPublishRequestTests {
    static let topic = "projects/p/topics/top"

    @Test func aRequestIsItsTopicThenEachMessagesDataAttributesAndOrderingKey() throws {
        let messages = [
            PubSubMessage(data: Data("hi".utf8), attributes: ["b": "2", "a": "1"], orderingKey: "k"),
            PubSubMessage(data: Data(), attributes: ["x": ""]),
        ]
        let bytes = PubSubPublishRequest.encode(messages, to: try PubSubTopic(Self.topic))
        let expected: [UInt8] =
            [0x0A, 0x15] + Array(Self.topic.utf8)  // topic = 1: 21 bytes
            + [0x12, 0x17]  // messages = 2, 23 bytes
            + [0x0A, 0x02, 0x68, 0x69]  // data = 1: "hi"
            + [0x12, 0x06, 0x0A, 0x01, 0x61, 0x12, 0x01, 0x31]  // attributes = 2: {key = 1: "a", value = 2: "1"}
            + [0x12, 0x06, 0x0A, 0x01, 0x62, 0x12, 0x01, 0x32]  // attributes = 2: {"b": "2"}
            + [0x2A, 0x01, 0x6B]  // ordering_key = 5: "k"
            + [0x12, 0x07]  // messages = 2, 7 bytes: no data, no ordering key
            + [0x12, 0x05, 0x0A, 0x01, 0x78, 0x12, 0x00]  // attributes = 2: {"x": ""}
        #expect(bytes == expected)
    }

    @Test func aMessageOf128BytesOrMoreHasALengthOfTwoBytes() throws {
        let message = PubSubMessage(data: Data(repeating: 0x61, count: 200))
        let bytes = PubSubPublishRequest.encode([message], to: try PubSubTopic(Self.topic))
        // 1 tag + 2 length bytes (200) + 200 bytes of data = 203: 0xCB 0x01.
        #expect(Array(bytes[23..<29]) == [0x12, 0xCB, 0x01, 0x0A, 0xC8, 0x01])
        #expect(bytes.count == 23 + 3 + 203)
    }

    @Test func aResponseIsItsMessageIDsInOrderWithUnknownFieldsSkipped() throws {
        let response: [UInt8] = [0x0A, 0x02, 0x34, 0x31, 0x10, 0x05, 0x0A, 0x01, 0x37]
        #expect(try PubSubPublishRequest.messageIDs(response) == ["41", "7"])
        #expect(try PubSubPublishRequest.messageIDs([]) == [])
    }

    @Test func aTruncatedResponseIsDataLoss() {
        #expect { try PubSubPublishRequest.messageIDs([0x0A, 0x05, 0x31]) } throws: { error in
            (error as? FirestoreError)?.code == .dataLoss
        }
    }

    @Test func theGRPCChannelIsTheRESTBaseURLWithoutItsPath() throws {
        let curl = CurlTransport(configuration: .init(requestTimeout: 30))
        let emulator = PubSubGRPCChannel(restBaseURL: "http://127.0.0.1:8085/v1/", transport: curl)
        #expect(emulator.baseURL == "http://127.0.0.1:8085")
        #expect(emulator.timeout == 30)
        let production = try PubSubPublisher(credentials: StaticTokenCredentials(token: "t"), protocol: .grpc)
        #expect(production.grpc.baseURL == "https://pubsub.googleapis.com")
        #expect(production.wireProtocol == .grpc)
        #expect(production.using(protocol: .rest).wireProtocol == .rest)
        #expect(production.using(protocol: .rest).grpc === production.grpc)
    }
}
