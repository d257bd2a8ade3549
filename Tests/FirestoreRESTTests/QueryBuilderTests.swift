import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// Composite filters, limit(toLast:), cursors, select, offset, aggregations and QueryPredicate, encoded only.
@Suite(.timeLimit(.minutes(2))) struct QueryBuilderTests {
    static func cities() throws -> CollectionReference {
        try Firestore.offline().collection("cities")
    }

    @Test func orOfAndIsNested() throws {
        let query = try Self.cities().whereFilter(
            .orFilter([
                .andFilter([.whereField("state", isEqualTo: "CA"), .whereField("pop", isLessThan: 5)]),
                .whereField("capital", isEqualTo: true),
            ]))
        #expect(
            try query.structuredQuery()
                == json(
                    """
                    {"from":[{"collectionId":"cities"}],"where":{"compositeFilter":{"op":"OR","filters":[
                      {"compositeFilter":{"op":"AND","filters":[
                        {"fieldFilter":{"field":{"fieldPath":"state"},"op":"EQUAL","value":{"stringValue":"CA"}}},
                        {"fieldFilter":{"field":{"fieldPath":"pop"},"op":"LESS_THAN","value":{"integerValue":"5"}}}]}},
                      {"fieldFilter":{"field":{"fieldPath":"capital"},"op":"EQUAL","value":{"booleanValue":true}}}]}}}
                    """))
    }

    @Test func singleAndEmptyCompositesCollapse() throws {
        let cities = try Self.cities()
        #expect(
            try cities.whereFilter(.orFilter([.whereField("a", isEqualTo: 1)])).structuredQuery()
                == json(
                    """
                    {"from":[{"collectionId":"cities"}],
                     "where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"integerValue":"1"}}}}
                    """))
        #expect(
            try cities.whereFilter(.andFilter([])).structuredQuery() == json(#"{"from":[{"collectionId":"cities"}]}"#))
        #expect(throws: FirestoreError.invalidArgument("an OR filter needs at least one filter")) {
            try cities.whereFilter(.orFilter([])).structuredQuery()
        }
    }

    @Test func limitToLastFlipsOrdersAndSwapsCursors() throws {
        let query = try Self.cities().order(by: "pop").order(by: "name", descending: true)
            .start(at: [10]).end(before: [20]).limit(toLast: 3)
        #expect(
            try query.structuredQuery()
                == json(
                    """
                    {"from":[{"collectionId":"cities"}],
                     "orderBy":[{"field":{"fieldPath":"pop"},"direction":"DESCENDING"},
                                {"field":{"fieldPath":"name"},"direction":"ASCENDING"}],
                     "startAt":{"values":[{"integerValue":"20"}]},
                     "endAt":{"values":[{"integerValue":"10"}]},
                     "limit":3}
                    """))
        #expect(
            throws: FirestoreError.invalidArgument(
                "limit(toLast:) needs at least one order(by:): Firestore has no last-N limit")
        ) { try Self.cities().limit(toLast: 3).structuredQuery() }
    }

    @Test func documentCursorNormalisesOrders() throws {
        let cities = try Self.cities()
        let snapshot = DocumentSnapshot(
            firestore: cities.firestore,
            document: Document(
                name: "projects/p/databases/(default)/documents/cities/SF", fields: ["pop": 860, "state": "CA"]))
        let query = cities.whereField("pop", isGreaterThan: 100).start(afterDocument: snapshot)
        #expect(
            try query.structuredQuery()
                == json(
                    """
                    {"from":[{"collectionId":"cities"}],
                     "where":{"fieldFilter":{"field":{"fieldPath":"pop"},"op":"GREATER_THAN","value":{"integerValue":"100"}}},
                     "orderBy":[{"field":{"fieldPath":"pop"},"direction":"ASCENDING"},
                                {"field":{"fieldPath":"__name__"},"direction":"ASCENDING"}],
                     "startAt":{"values":[{"integerValue":"860"},
                                          {"referenceValue":"projects/p/databases/(default)/documents/cities/SF"}]}}
                    """))
        #expect(
            throws: FirestoreError.invalidArgument(
                "the start cursor's document cities/SF has no field name, which the query orders by")
        ) { try cities.order(by: "name").start(atDocument: snapshot).structuredQuery() }
    }

    @Test func selectOffsetAndTooManyCursorValues() throws {
        let cities = try Self.cities()
        #expect(
            try cities.select(["name", "address.city"]).offset(5).structuredQuery()
                == json(
                    """
                    {"from":[{"collectionId":"cities"}],"offset":5,
                     "select":{"fields":[{"fieldPath":"name"},{"fieldPath":"address.city"}]}}
                    """))
        #expect(
            throws: FirestoreError.invalidArgument(
                "the start cursor has 2 values but the query has only 1 orders")
        ) { try cities.order(by: "a").start(at: [1, 2]).structuredQuery() }
        #expect(throws: FirestoreError.invalidArgument("offset must not be negative, got -1")) {
            try cities.offset(-1).structuredQuery()
        }
    }

    @Test func collectionGroupDocumentIDFilterNeedsAPath() throws {
        let db = try Firestore.offline()
        let group = db.collectionGroup("landmarks")
        #expect(
            try group.whereField(FieldPath.documentID, .greaterThanOrEqual, "cities/SF/landmarks/a")
                .structuredQuery()
                == json(
                    """
                    {"from":[{"collectionId":"landmarks","allDescendants":true}],
                     "where":{"fieldFilter":{"field":{"fieldPath":"__name__"},"op":"GREATER_THAN_OR_EQUAL",
                       "value":{"referenceValue":"projects/p/databases/(default)/documents/cities/SF/landmarks/a"}}}}
                    """))
        #expect(
            throws: FirestoreError.invalidArgument(
                "a collection-group query on __name__ needs a document path, not the bare ID \"a\"")
        ) { try group.whereField(FieldPath.documentID, .equal, "a").structuredQuery() }
    }

    @Test func aggregationRequest() throws {
        let query = try Self.cities().whereField("state", isEqualTo: "CA")
            .aggregate([.count(upTo: 100), .sum("pop"), .average("pop"), .sum("pop")])
        #expect(query.aggregations.count == 3)
        #expect(
            try query.structuredAggregationQuery()
                == json(
                    """
                    {"structuredQuery":{"from":[{"collectionId":"cities"}],
                       "where":{"fieldFilter":{"field":{"fieldPath":"state"},"op":"EQUAL","value":{"stringValue":"CA"}}}},
                     "aggregations":[{"alias":"aggregate_0","count":{"upTo":"100"}},
                                     {"alias":"aggregate_1","sum":{"field":{"fieldPath":"pop"}}},
                                     {"alias":"aggregate_2","avg":{"field":{"fieldPath":"pop"}}}]}
                    """))
        let snapshot = try AggregateQuerySnapshot(
            query: query,
            response: RunAggregationQueryResponse(
                decoding: json(
                    """
                    [{"result":{"aggregateFields":{"aggregate_0":{"integerValue":"2"},"aggregate_1":{"integerValue":"5"},
                      "aggregate_2":{"doubleValue":2.5}}},"readTime":"2024-05-01T00:00:00Z"}]
                    """)))
        #expect(snapshot.count == 2)
        #expect(snapshot.get(.sum("pop")) == .integer(5))
        #expect(snapshot.get(.average("pop")) == .double(2.5))
        #expect(snapshot.readTime == ts(1_714_521_600))
        #expect(throws: FirestoreError.self) {
            try AggregateQuerySnapshot(
                query: query,
                response: RunAggregationQueryResponse(
                    decoding: json(#"[{"result":{"aggregateFields":{"aggregate_0":{"integerValue":"2"}}}}]"#)))
        }
    }

    @Test func predicatesMapOntoTheBuilder() throws {
        let cities = try Self.cities()
        let viaPredicates = cities.applying([
            .whereField("state", isEqualTo: "CA"), .isNotEqualTo("name", "LA"),
            .where(field: "tags", arrayContains: "x"),
            .whereFilter(.orFilter([.whereField("a", isEqualTo: 1), .whereField("b", isEqualTo: 2)])),
            .order(by: "name", descending: true), .limit(toLast: 4),
        ])
        let viaBuilder = cities.whereField("state", isEqualTo: "CA").whereField("name", isNotEqualTo: "LA")
            .whereField("tags", arrayContains: "x")
            .whereFilter(.orFilter([.whereField("a", isEqualTo: 1), .whereField("b", isEqualTo: 2)]))
            .order(by: "name", descending: true).limit(toLast: 4)
        #expect(try viaPredicates.structuredQuery() == viaBuilder.structuredQuery())
        #expect(viaPredicates.limitType == .last)
        #expect(viaPredicates.limit == 4)
    }
}
