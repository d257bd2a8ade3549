import FirestoreFeed
import FirestoreREST
import Foundation
import Testing

@testable import FirestorePubSub

/// The message of a document change, as a consumer reads it (`PubSubChangeMessage`): the written-out data and
/// attributes of an added document, a removal, a group's change, and a name over the ordering-key limit. No network.
@Suite(.timeLimit(.minutes(1))) struct PubSubChangeMessageTests {
    static let name = "projects/p/databases/(default)/documents/fruits/apple"

    /// A client that sends nothing here: snapshots need one.
    static func db() throws -> Firestore { try Firestore.emulator(host: "127.0.0.1:9", projectID: "p") }

    static func change(_ type: DocumentChangeType, _ document: Document) throws -> DocumentChange {
        DocumentChange(
            type: type, document: DocumentSnapshot(firestore: try db(), document: document), oldIndex: nil,
            newIndex: nil)
    }

    static func apple(name: String = name) throws -> Document {
        Document(
            name: name,
            fields: ["kcal": .integer(52), "tags": .array([.string("red")]), "raw": .bytes(Data([0, 255]))],
            createTime: try Timestamp(rfc3339: "2026-12-06T10:00:00.5Z"),
            updateTime: try Timestamp(rfc3339: "2026-12-06T10:00:01.123456789Z"))
    }

    @Test func anAddedDocumentIsItsRESTDocumentKeyedByItsName() throws {
        let readTime = try Timestamp(rfc3339: "2026-12-06T10:00:02Z")
        let message = try PubSubChangeMessage.message(
            for: try Self.change(.added, try Self.apple()), readTime: readTime)
        #expect(message.orderingKey == Self.name)
        #expect(
            message.attributes == [
                "name": Self.name, "changeType": "added", "updateTime": "2026-12-06T10:00:01.123456789Z",
                "readTime": "2026-12-06T10:00:02.000000000Z",
            ])
        #expect(
            try JSONValue.parse(message.data)
                == JSONValue.parse(
                    #"{"name":"projects/p/databases/(default)/documents/fruits/apple","#
                        + #""fields":{"kcal":{"integerValue":"52"},"tags":{"arrayValue":{"values":[{"stringValue":"red"}]}},"#
                        + #""raw":{"bytesValue":"AP8="}},"#
                        + #""createTime":"2026-12-06T10:00:00.500Z","updateTime":"2026-12-06T10:00:01.123456789Z"}"#))
    }

    @Test func aRemovalSaysSoAndIsVersionedAtTheReadTimeThatSawItLeave() throws {
        let readTime = try Timestamp(rfc3339: "2026-12-06T10:00:09.000000001Z")
        let message = try PubSubChangeMessage.message(
            for: try Self.change(.removed, try Self.apple()), readTime: readTime, shard: 2, generation: 7)
        #expect(
            message.attributes == [
                "name": Self.name, "changeType": "removed", "updateTime": "2026-12-06T10:00:09.000000001Z",
                "readTime": "2026-12-06T10:00:09.000000001Z", "shard": "2", "generation": "7",
            ])
        #expect(String(decoding: message.data, as: UTF8.self) == #"{"name":"\#(Self.name)","removed":true}"#)
    }

    @Test func aNameOverTheOrderingKeyLimitIsKeyedByItsSHA256() throws {
        let long = "projects/p/databases/(default)/documents/c/" + String(repeating: "x", count: 1_000)
        let message = try PubSubChangeMessage.message(
            for: try Self.change(.modified, try Self.apple(name: long)),
            readTime: try Timestamp(rfc3339: "2026-12-06T10:00:02Z"))
        // As `printf %s NAME | sha256sum` prints it.
        #expect(message.orderingKey == "sha256:26088f72251b4737c7b46f0376df70ded574a12963257af293a1c33b3da51781")
        #expect(message.orderingKey.utf8.count == 71)
        #expect(message.attributes["name"] == message.orderingKey)
        #expect(message.problem == nil)
        #expect(PubSubChangeMessage.orderingKey(for: Self.name) == Self.name)
    }

    @Test func theKnownDigestOfABCIsUsed() {
        // FIPS 180-2's example: SHA-256("abc").
        #expect(
            PubSubChangeMessage.sha256Hex(Array("abc".utf8))
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func aSnapshotWithoutAReadTimeIsRefused() throws {
        let snapshot = QuerySnapshot(
            query: try Self.db().collection("fruits").query, documents: [], documentChanges: [], readTime: nil)
        #expect(throws: FirestoreError.self) { try PubSubChangeMessage.messages(for: snapshot) }
    }
}
