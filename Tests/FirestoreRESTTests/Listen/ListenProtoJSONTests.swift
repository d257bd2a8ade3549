import FirestoreFeed
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

@testable import FirestoreREST

/// The proto3 JSON form of the Listen messages, as a cassette records them: `ListenResponse` of every kind
/// encoded to written-out JSON and decoded back, `ListenRequest` encoded with its query target's
/// StructuredQuery decoded from the protobuf bytes back to the REST JSON.
@Suite("Listen proto3 JSON", .timeLimit(.minutes(2)))
struct ListenProtoJSONTests {
    private static func makeDB() throws -> Firestore {
        try Firestore.offline()
    }

    struct ResponseCase: Sendable, CustomTestStringConvertible {
        let name: String
        let response: ListenResponse
        let json: String
        var testDescription: String { name }
    }

    static let document = Document(
        name: "projects/p/databases/(default)/documents/fruits/apple", fields: ["name": "Apple", "kcal": 52],
        createTime: ts(1_700_000_000, 120_000_000), updateTime: ts(1_700_000_001, 5))

    static let responseCases: [ResponseCase] = [
        ResponseCase(
            name: "target change ADD",
            response: .targetChange(ListenTargetChange(kind: .add, targetIDs: [1])),
            json: #"{"targetChange":{"targetChangeType":"ADD","targetIds":[1]}}"#),
        ResponseCase(
            name: "target change CURRENT with a resume token and a read time",
            response: .targetChange(
                ListenTargetChange(
                    kind: .current, targetIDs: [1, 2], resumeToken: [0x0A, 0x09, 0xFF], readTime: ts(10, 500_000))),
            json:
                #"{"targetChange":{"readTime":"1970-01-01T00:00:10.000500Z","resumeToken":"Cgn/","targetChangeType":"CURRENT","targetIds":[1,2]}}"#
        ),
        ResponseCase(
            name: "target change NO_CHANGE for every target (a snapshot point): the default type is left out",
            response: .targetChange(ListenTargetChange(kind: .noChange, readTime: ts(11))),
            json: #"{"targetChange":{"readTime":"1970-01-01T00:00:11Z"}}"#),
        ResponseCase(
            name: "target change REMOVE with a cause status",
            response: .targetChange(
                ListenTargetChange(
                    kind: .remove, targetIDs: [3],
                    cause: RPCStatus(code: 7, message: "Missing or insufficient permissions."))),
            json:
                #"{"targetChange":{"cause":{"code":7,"message":"Missing or insufficient permissions."},"targetChangeType":"REMOVE","targetIds":[3]}}"#
        ),
        ResponseCase(
            name: "target change RESET",
            response: .targetChange(ListenTargetChange(kind: .reset, targetIDs: [1])),
            json: #"{"targetChange":{"targetChangeType":"RESET","targetIds":[1]}}"#),
        ResponseCase(
            name: "document change",
            response: .documentChange(ListenDocumentChange(document: document, targetIDs: [1], removedTargetIDs: [2])),
            json:
                #"{"documentChange":{"document":{"createTime":"2023-11-14T22:13:20.120Z","fields":{"kcal":{"integerValue":"52"},"name":{"stringValue":"Apple"}},"name":"projects/p/databases/(default)/documents/fruits/apple","updateTime":"2023-11-14T22:13:21.000000005Z"},"removedTargetIds":[2],"targetIds":[1]}}"#
        ),
        ResponseCase(
            name: "document delete",
            response: .documentDelete(
                ListenDocumentDelete(
                    documentName: "projects/p/databases/(default)/documents/fruits/fig", removedTargetIDs: [1],
                    readTime: ts(12))),
            json:
                #"{"documentDelete":{"document":"projects/p/databases/(default)/documents/fruits/fig","readTime":"1970-01-01T00:00:12Z","removedTargetIds":[1]}}"#
        ),
        ResponseCase(
            name: "document remove",
            response: .documentRemove(
                ListenDocumentRemove(
                    documentName: "projects/p/databases/(default)/documents/fruits/date", removedTargetIDs: [1, 4])),
            json:
                #"{"documentRemove":{"document":"projects/p/databases/(default)/documents/fruits/date","removedTargetIds":[1,4]}}"#
        ),
        ResponseCase(
            name: "existence filter with a bloom filter",
            response: .filter(
                ListenExistenceFilter(
                    targetID: 1, count: 2,
                    unchangedNames: ListenBloomFilter(bitmap: [0x97, 0x01], padding: 3, hashCount: 7))),
            json:
                #"{"filter":{"count":2,"targetId":1,"unchangedNames":{"bits":{"bitmap":"lwE=","padding":3},"hashCount":7}}}"#
        ),
        ResponseCase(
            name: "existence filter without a bloom filter, count 0 left out",
            response: .filter(ListenExistenceFilter(targetID: 5, count: 0)),
            json: #"{"filter":{"targetId":5}}"#),
        ResponseCase(name: "a message of no known kind", response: .unrecognized, json: "{}"),
    ]

    @Test("ListenResponse to proto3 JSON and back", arguments: responseCases)
    func responseRoundTrip(responseCase: ResponseCase) throws {
        let encoded = responseCase.response.protoJSON
        #expect(encoded.serializedString() == responseCase.json)
        #expect(try ListenResponse(protoJSON: try json(responseCase.json)) == responseCase.response)
    }

    @Test("a request adding a query target: the StructuredQuery reads as the runQuery JSON")
    func addQueryTargetRequest() throws {
        let db = try Self.makeDB()
        let query = db.collection("fruits").whereField("isFavourite", isEqualTo: true).order(by: "name").limit(to: 3)
        let target = try ListenTarget(query: query, targetID: 1, resumePoint: .resumeToken([0x0A, 0x02]))
        let request = ListenRequest(adding: target, database: db.database.name)
        #expect(
            try request.protoJSON().serializedString()
                == #"{"addTarget":{"query":{"parent":"projects/p/databases/(default)/documents","structuredQuery":{"from":[{"collectionId":"fruits"}],"limit":3,"orderBy":[{"direction":"ASCENDING","field":{"fieldPath":"name"}}],"where":{"fieldFilter":{"field":{"fieldPath":"isFavourite"},"op":"EQUAL","value":{"booleanValue":true}}}}},"resumeToken":"CgI=","targetId":1},"database":"projects/p/databases/(default)"}"#
        )
        let structuredQuery = try #require(try request.protoJSON()["addTarget"]?["query"]?["structuredQuery"])
        #expect(structuredQuery == (try query.structuredQuery()))
    }

    @Test("a request adding a documents target with a read time and expected count; labels; a removal")
    func otherRequests() throws {
        let target = ListenTarget(
            documents: ["projects/p/databases/(default)/documents/a/b"], targetID: 2, resumePoint: .readTime(ts(3)),
            expectedCount: 0)
        #expect(
            try ListenRequest(adding: target, database: "projects/p/databases/(default)", labels: ["k": "v"])
                .protoJSON().serializedString()
                == #"{"addTarget":{"documents":{"documents":["projects/p/databases/(default)/documents/a/b"]},"expectedCount":0,"readTime":"1970-01-01T00:00:03Z","targetId":2},"database":"projects/p/databases/(default)","labels":{"k":"v"}}"#
        )
        #expect(
            try ListenRequest(removing: 2, database: "projects/p/databases/(default)").protoJSON().serializedString()
                == #"{"database":"projects/p/databases/(default)","removeTarget":2}"#)
    }

    @Test(
        "every query of the REST encoder's tables decodes from protobuf to the same REST JSON",
        arguments: StructuredQueryTests.operatorCases + StructuredQueryTests.specialCases)
    func structuredQueryDecodesBack(queryCase: QueryCase) throws {
        let query = queryCase.build(try Self.makeDB().collection("c"))
        let bytes = try query.structuredQueryProtobuf()
        let decoded = try StructuredQueryProtobuf.decode(bytes)
        #expect(decoded == (try query.structuredQuery()))
        #expect(try StructuredQueryProtobuf.encode(decoded) == bytes)
    }

    @Test("select, a collection group, an OR with a unary filter, both cursors and an offset decode back")
    // start(at:) is a cursor before its values (`before: true`), end(before:) too.
    func structuredQueryWithEveryMember() throws {
        let query = try Self.makeDB().collectionGroup("g").select(["a"])
            .whereFilter(
                .orFilter([.whereField("x", isEqualTo: FirestoreValue.null), .whereField("y", isLessThan: 2)])
            )
            .order(by: "y").start(at: [1]).end(before: [5]).offset(4)
        let decoded = try StructuredQueryProtobuf.decode(try query.structuredQueryProtobuf())
        #expect(
            decoded.serializedString()
                == #"{"endAt":{"before":true,"values":[{"integerValue":"5"}]},"from":[{"allDescendants":true,"collectionId":"g"}],"offset":4,"orderBy":[{"direction":"ASCENDING","field":{"fieldPath":"y"}}],"select":{"fields":[{"fieldPath":"a"}]},"startAt":{"before":true,"values":[{"integerValue":"1"}]},"where":{"compositeFilter":{"filters":[{"unaryFilter":{"field":{"fieldPath":"x"},"op":"IS_NULL"}},{"fieldFilter":{"field":{"fieldPath":"y"},"op":"LESS_THAN","value":{"integerValue":"2"}}}],"op":"OR"}}}"#
        )
    }

    @Test("a malformed StructuredQuery fails with the field path and byte offset")
    func malformedStructuredQuery() {
        // from { collection_id: length 9 past the end }
        #expect(
            throws: FirestoreError(
                code: .dataLoss, message: "StructuredQuery.from.collection_id: length 9 past the end at byte 3")
        ) {
            try StructuredQueryProtobuf.decode(hex("12 03 12 09 63"))
        }
        // order_by { direction 7 }
        #expect(
            throws: FirestoreError(
                code: .dataLoss, message: "StructuredQuery.order_by.direction: unknown enum value 7 at byte 2")
        ) {
            try StructuredQueryProtobuf.decode(hex("22 02 10 07"))
        }
    }
}
