import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The StructuredQuery JSON of a delta poll's two requests (``DeltaRequests``).
@Suite(.timeLimit(.minutes(2))) struct DeltaRequestsTests {
    static let root = "projects/p/databases/(default)/documents"
    static let watermark = DeltaDifferentialTests.time(0)
    static let field = try? FieldPath(quoted: "updatedAt")

    static func requests(_ query: Query) throws -> DeltaRequests {
        try DeltaRequests(query: query, field: #require(field))
    }

    static func db() throws -> Firestore { try ScriptedTransport([]).firestore() }

    @Test func theDeltaRequestAddsTheFieldFilterAndDropsTheLimit() throws {
        let query = try Self.db().collection("items").whereField("group", isEqualTo: "a").order(by: "rank")
            .limit(to: 5)
        let expected = try JSONValue.parse(
            #"""
            {"from":[{"collectionId":"items"}],
             "where":{"compositeFilter":{"op":"AND","filters":[
               {"fieldFilter":{"field":{"fieldPath":"group"},"op":"EQUAL","value":{"stringValue":"a"}}},
               {"fieldFilter":{"field":{"fieldPath":"updatedAt"},"op":"GREATER_THAN_OR_EQUAL",
                "value":{"timestampValue":"2024-05-01T00:00:00Z"}}}]}},
             "orderBy":[{"field":{"fieldPath":"rank"},"direction":"ASCENDING"}]}
            """#)
        #expect(try Self.requests(query).changedSince(Self.watermark).restJSON == expected)
        #expect(try !Self.requests(query).isRelaxed)
    }

    /// With `__name__` ordered explicitly (a document cursor), the server refuses another inequality field after
    /// it, so the request drops it and widens the cursors; the exact cursors are applied to what comes back.
    @Test func aDocumentCursorIsRelaxedAndAppliedLocally() throws {
        let db = try Self.db()
        let cursor = DocumentSnapshot(
            firestore: db, document: Document(name: Self.root + "/items/m", fields: ["rank": .integer(5)]))
        let query = db.collection("items").order(by: "rank").start(afterDocument: cursor)
        let requests = try Self.requests(query)
        #expect(requests.isRelaxed)
        let expected = try JSONValue.parse(
            #"""
            {"from":[{"collectionId":"items"}],
             "where":{"fieldFilter":{"field":{"fieldPath":"updatedAt"},"op":"GREATER_THAN_OR_EQUAL",
                      "value":{"timestampValue":"2024-05-01T00:00:00Z"}}},
             "orderBy":[{"field":{"fieldPath":"rank"},"direction":"ASCENDING"}],
             "startAt":{"values":[{"integerValue":"5"}],"before":true}}
            """#)
        #expect(requests.changedSince(Self.watermark).restJSON == expected)
        func document(_ id: String, _ rank: Int64) -> Document {
            Document(name: Self.root + "/items/" + id, fields: ["rank": .integer(rank)])
        }
        #expect(requests.matchesCursors(document("a", 5)) == false)
        #expect(requests.matchesCursors(document("m", 5)) == false)
        #expect(requests.matchesCursors(document("n", 5)) == true)
        #expect(requests.matchesCursors(document("a", 6)) == true)
        #expect(requests.matchesCursors(document("z", 4)) == false)
    }

    /// For a full window the count ends at the edge document, with a value for every normalised order; a
    /// `limit(toLast:)` window counts in the flipped order it is sent in.
    @Test func theCountOfAFullWindowEndsAtItsEdge() throws {
        let db = try Self.db()
        let edge = Document(name: Self.root + "/items/e", fields: ["rank": .integer(3)])
        let last = db.collection("items").order(by: "rank").limit(toLast: 2)
        let expected = try JSONValue.parse(
            #"""
            {"from":[{"collectionId":"items"}],
             "orderBy":[{"field":{"fieldPath":"rank"},"direction":"DESCENDING"},
                        {"field":{"fieldPath":"__name__"},"direction":"DESCENDING"}],
             "endAt":{"values":[{"integerValue":"3"},
                                {"referenceValue":"projects/p/databases/(default)/documents/items/e"}]}}
            """#)
        #expect(try Self.requests(last).count(endingAt: edge)?.restJSON == expected)
        #expect(
            try Self.requests(last).count(endingAt: nil)?.restJSON
                == JSONValue.parse(
                    #"{"from":[{"collectionId":"items"}],"orderBy":[{"field":{"fieldPath":"rank"},"direction":"DESCENDING"}]}"#
                ))
        let missing = Document(name: Self.root + "/items/x", fields: [:])
        #expect(try Self.requests(last).count(endingAt: missing) == nil)
    }

    @Test func queriesDeltaCannotPoll() throws {
        let items = try Self.db().collection("items")
        #expect(DeltaRequests.unsupportedReason(items.order(by: "rank").offset(2)) == "the query has an offset")
        #expect(DeltaRequests.unsupportedReason(items.limit(to: 0)) == "the query has limit 0")
        #expect(
            DeltaRequests.unsupportedReason(items.order(by: "rank").select(["name"]))
                == "the projection leaves out rank, which the query orders by")
        #expect(DeltaRequests.unsupportedReason(items.order(by: "rank").select(["rank"])) == nil)
        #expect(DeltaRequests.unsupportedReason(items.order(by: "a.b").select(["a"])) == nil)
        #expect(DeltaRequests.unsupportedReason(items.select(fields: [])) == nil)
    }
}
