import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

private func makeDB() throws -> Firestore {
    try Firestore.offline()
}

/// One row of a query table: how to build the query from collection `c`, and the StructuredQuery expected.
struct QueryCase: Sendable, CustomTestStringConvertible {
    let name: String
    let build: @Sendable (CollectionReference) -> Query
    let expected: String

    init(_ name: String, _ expected: String, _ build: @escaping @Sendable (CollectionReference) -> Query) {
        self.name = name
        self.build = build
        self.expected = expected
    }

    var testDescription: String { name }
}

@Suite("StructuredQuery", .timeLimit(.minutes(2)))
struct StructuredQueryTests {
    static let operatorCases: [QueryCase] = [
        QueryCase(
            "==",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"integerValue":"1"}}}}"#
        ) { $0.whereField("a", isEqualTo: 1) },
        QueryCase(
            "!=",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"NOT_EQUAL","value":{"stringValue":"CA"}}}}"#
        ) { $0.whereField("a", isNotEqualTo: "CA") },
        QueryCase(
            "<",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"LESS_THAN","value":{"doubleValue":1.5}}}}"#
        ) { $0.whereField("a", isLessThan: 1.5) },
        QueryCase(
            "<=",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"LESS_THAN_OR_EQUAL","value":{"integerValue":"2"}}}}"#
        ) { $0.whereField("a", isLessThanOrEqualTo: 2) },
        QueryCase(
            ">",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"GREATER_THAN","value":{"integerValue":"3"}}}}"#
        ) { $0.whereField("a", isGreaterThan: 3) },
        QueryCase(
            ">=",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"GREATER_THAN_OR_EQUAL","value":{"timestampValue":"2024-05-01T03:04:05.500Z"}}}}"#
        ) { $0.whereField("a", isGreaterThanOrEqualTo: ts(1_714_532_645, 500_000_000)) },
        QueryCase(
            "array-contains",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"tags"},"op":"ARRAY_CONTAINS","value":{"stringValue":"red"}}}}"#
        ) { $0.whereField("tags", arrayContains: "red") },
        QueryCase(
            "array-contains-any",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"tags"},"op":"ARRAY_CONTAINS_ANY","value":{"arrayValue":{"values":[{"stringValue":"red"},{"stringValue":"green"}]}}}}}"#
        ) { $0.whereField("tags", arrayContainsAny: ["red", "green"]) },
        QueryCase(
            "in",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"IN","value":{"arrayValue":{"values":[{"integerValue":"1"},{"integerValue":"2"}]}}}}}"#
        ) { $0.whereField("a", in: [1, 2]) },
        QueryCase(
            "not-in",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"NOT_IN","value":{"arrayValue":{"values":[{"stringValue":"x"},{"nullValue":null}]}}}}}"#
        ) { $0.whereField("a", notIn: ["x", FirestoreValue.null]) },
        QueryCase(
            "generic operator",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"GREATER_THAN","value":{"booleanValue":false}}}}"#
        ) { $0.whereField("a", .greaterThan, false) },
    ]

    @Test(arguments: operatorCases)
    func encodesOperator(_ row: QueryCase) throws {
        let collection = try makeDB().collection("c")
        #expect(try row.build(collection).structuredQuery() == (try json(row.expected)))
    }

    static let specialCases: [QueryCase] = [
        QueryCase(
            "collection only", #"{"from":[{"collectionId":"c"}]}"#
        ) { $0.query },
        QueryCase(
            "== nil String? → IS_NULL",
            #"{"from":[{"collectionId":"c"}],"where":{"unaryFilter":{"op":"IS_NULL","field":{"fieldPath":"a"}}}}"#
        ) { $0.whereField("a", isEqualTo: nil as String?) },
        QueryCase(
            "== FirestoreValue.null → IS_NULL",
            #"{"from":[{"collectionId":"c"}],"where":{"unaryFilter":{"op":"IS_NULL","field":{"fieldPath":"a"}}}}"#
        ) { $0.whereField("a", isEqualTo: FirestoreValue.null) },
        QueryCase(
            "== NaN → IS_NAN",
            #"{"from":[{"collectionId":"c"}],"where":{"unaryFilter":{"op":"IS_NAN","field":{"fieldPath":"a"}}}}"#
        ) { $0.whereField("a", isEqualTo: Double.nan) },
        QueryCase(
            "!= null → IS_NOT_NULL",
            #"{"from":[{"collectionId":"c"}],"where":{"unaryFilter":{"op":"IS_NOT_NULL","field":{"fieldPath":"a"}}}}"#
        ) { $0.whereField("a", isNotEqualTo: FirestoreValue.null) },
        QueryCase(
            "!= NaN → IS_NOT_NAN",
            #"{"from":[{"collectionId":"c"}],"where":{"unaryFilter":{"op":"IS_NOT_NAN","field":{"fieldPath":"a"}}}}"#
        ) { $0.whereField("a", isNotEqualTo: Double.nan) },
        QueryCase(
            "two filters → AND",
            #"{"from":[{"collectionId":"c"}],"where":{"compositeFilter":{"op":"AND","filters":[{"fieldFilter":{"field":{"fieldPath":"state"},"op":"EQUAL","value":{"stringValue":"CA"}}},{"fieldFilter":{"field":{"fieldPath":"population"},"op":"GREATER_THAN","value":{"integerValue":"1000000"}}}]}}}"#
        ) { $0.whereField("state", isEqualTo: "CA").whereField("population", isGreaterThan: 1_000_000) },
        QueryCase(
            "field filter and unary filter → AND",
            #"{"from":[{"collectionId":"c"}],"where":{"compositeFilter":{"op":"AND","filters":[{"unaryFilter":{"op":"IS_NULL","field":{"fieldPath":"b"}}},{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"integerValue":"1"}}}]}}}"#
        ) { $0.whereField("b", isEqualTo: FirestoreValue.null).whereField("a", isEqualTo: 1) },
        QueryCase(
            "order and limit",
            #"{"from":[{"collectionId":"c"}],"orderBy":[{"field":{"fieldPath":"a"},"direction":"DESCENDING"},{"field":{"fieldPath":"b"},"direction":"ASCENDING"}],"limit":10}"#
        ) { $0.order(by: "a", descending: true).order(by: "b").limit(to: 10) },
        QueryCase(
            "limit 0", #"{"from":[{"collectionId":"c"}],"limit":0}"#
        ) { $0.limit(to: 0) },
        QueryCase(
            "last limit wins", #"{"from":[{"collectionId":"c"}],"limit":3}"#
        ) { $0.limit(to: 10).limit(to: 3) },
        QueryCase(
            "where, order, limit",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"GREATER_THAN","value":{"integerValue":"1"}}},"orderBy":[{"field":{"fieldPath":"a"},"direction":"ASCENDING"}],"limit":5}"#
        ) { $0.whereField("a", isGreaterThan: 1).order(by: "a").limit(to: 5) },
        QueryCase(
            "dotted and quoted field paths",
            #"{"from":[{"collectionId":"c"}],"where":{"compositeFilter":{"op":"AND","filters":[{"fieldFilter":{"field":{"fieldPath":"profile.age"},"op":"EQUAL","value":{"integerValue":"3"}}},{"fieldFilter":{"field":{"fieldPath":"`123abc`"},"op":"EQUAL","value":{"integerValue":"4"}}},{"fieldFilter":{"field":{"fieldPath":"`a.b`"},"op":"EQUAL","value":{"integerValue":"5"}}}]}},"orderBy":[{"field":{"fieldPath":"`spam-eggs`"},"direction":"ASCENDING"}]}"#
        ) {
            $0.whereField("profile.age", isEqualTo: 3).whereField("123abc", isEqualTo: 4)
                .whereField(FieldPath(uncheckedSegments: ["a.b"]), .equal, 5).order(by: "spam-eggs")
        },
        QueryCase(
            "Int64.max keeps full precision",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"n"},"op":"EQUAL","value":{"integerValue":"9223372036854775807"}}}}"#
        ) { $0.whereField("n", isEqualTo: Int64.max) },
        QueryCase(
            "__name__ bare ID → reference",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"__name__"},"op":"EQUAL","value":{"referenceValue":"projects/p/databases/(default)/documents/c/d1"}}}}"#
        ) { $0.whereField(FieldPath.documentID, .equal, "d1") },
        QueryCase(
            "__name__ in bare IDs → references",
            #"{"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"__name__"},"op":"IN","value":{"arrayValue":{"values":[{"referenceValue":"projects/p/databases/(default)/documents/c/d1"},{"referenceValue":"projects/p/databases/(default)/documents/other/d2"}]}}}}}"#
        ) { $0.whereField(FieldPath.documentID, .in, ["d1", "other/d2"]) },
    ]

    @Test(arguments: specialCases)
    func encodesSpecialCase(_ row: QueryCase) throws {
        let collection = try makeDB().collection("c")
        #expect(try row.build(collection).structuredQuery() == (try json(row.expected)))
    }

    static let invalidCases: [QueryCase] = [
        QueryCase("< null", "") { $0.whereField("a", isLessThan: FirestoreValue.null) },
        QueryCase(">= nil", "") { $0.whereField("a", isGreaterThanOrEqualTo: nil as Int?) },
        QueryCase("> NaN", "") { $0.whereField("a", isGreaterThan: Double.nan) },
        QueryCase("array-contains null", "") { $0.whereField("a", arrayContains: FirestoreValue.null) },
        QueryCase("in []", "") { $0.whereField("a", in: []) },
        QueryCase("not-in []", "") { $0.whereField("a", notIn: []) },
        QueryCase("array-contains-any []", "") { $0.whereField("a", arrayContainsAny: []) },
        QueryCase("in with a non-array", "") { $0.whereField("a", .in, 1) },
        QueryCase("empty field path", "") { $0.whereField("", isEqualTo: 1) },
        QueryCase("field path a..b", "") { $0.whereField("a..b", isEqualTo: 1) },
        QueryCase("order by a..b", "") { $0.order(by: "a..b") },
        QueryCase("negative limit", "") { $0.limit(to: -1) },
        QueryCase("__name__ with a collection path", "") { $0.whereField(FieldPath.documentID, .equal, "a/b/c") },
    ]

    @Test(arguments: invalidCases)
    func refuses(_ row: QueryCase) throws {
        let collection = try makeDB().collection("c")
        let error = #expect(throws: FirestoreError.self) { try row.build(collection).structuredQuery() }
        #expect(error?.code == .invalidArgument)
    }

    @Test func nullComparisonErrorNamesTheFilter() throws {
        let query = try makeDB().collection("c").whereField("a", isLessThan: FirestoreValue.null)
        let error = #expect(throws: FirestoreError.self) { try query.structuredQuery() }
        #expect(error?.message.contains("a < null") == true, "message: \(error?.message ?? "nil")")
    }

    // MARK: Parents

    @Test func subcollectionQuery() throws {
        let db = try makeDB()
        let query = db.collection("c/d/sub").whereField("a", isEqualTo: true)
        #expect(try query.parentPath().segments == ["c", "d"])
        #expect(
            try query.structuredQuery()
                == (try json(
                    #"{"from":[{"collectionId":"sub"}],"where":{"fieldFilter":{"field":{"fieldPath":"a"},"op":"EQUAL","value":{"booleanValue":true}}}}"#
                )))
        let viaDocument = db.document("c/d").collection("sub").query
        #expect(try viaDocument.parentPath().segments == ["c", "d"])
        #expect(try viaDocument.structuredQuery() == (try json(#"{"from":[{"collectionId":"sub"}]}"#)))
    }

    @Test func subcollectionNameFilterExpandsBelowParent() throws {
        let query = try makeDB().collection("c/d/sub").whereField(FieldPath.documentID, .equal, "x")
        #expect(
            try query.structuredQuery()
                == (try json(
                    #"{"from":[{"collectionId":"sub"}],"where":{"fieldFilter":{"field":{"fieldPath":"__name__"},"op":"EQUAL","value":{"referenceValue":"projects/p/databases/(default)/documents/c/d/sub/x"}}}}"#
                )))
    }

    @Test func topLevelQueryParentIsRoot() throws {
        #expect(try makeDB().collection("c").query.parentPath().segments == [])
    }

    @Test func collectionGroup() throws {
        let query = try makeDB().collectionGroup("sub")
        #expect(try query.parentPath().segments == [])
        #expect(try query.structuredQuery() == (try json(#"{"from":[{"collectionId":"sub","allDescendants":true}]}"#)))
    }

    @Test(arguments: ["c/d", "", "c//d/e", "a/b/c/d"])
    func invalidCollectionPathThrowsOnEncode(path: String) throws {
        let query = try makeDB().collection(path).query
        let error = #expect(throws: FirestoreError.self) { try query.structuredQuery() }
        #expect(error?.code == .invalidArgument)
    }

    @Test func runQueryBody() throws {
        let query = try makeDB().collection("c").limit(to: 1)
        #expect(
            try query.runQueryBody() == (try json(#"{"structuredQuery":{"from":[{"collectionId":"c"}],"limit":1}}"#)))
    }

    @Test func runningNeverReachesTheNetworkHere() async throws {
        let query = try makeDB().collection("c").whereField("a", isEqualTo: 1)
        let error = await #expect(throws: FirestoreError.self) { try await query.getDocuments() }
        #expect(error?.code == .unavailable)
    }

    @Test func invalidQueryFailsBeforeSending() async throws {
        let query = try makeDB().collection("c").whereField("a", in: [])
        let error = await #expect(throws: FirestoreError.self) { try await query.getDocuments() }
        #expect(error?.code == .invalidArgument)
    }

    // MARK: Operators

    @Test(arguments: [
        ("<", FilterOperator.lessThan), ("<=", .lessThanOrEqual), (">", .greaterThan), (">=", .greaterThanOrEqual),
        ("==", .equal), ("!=", .notEqual), ("array-contains", .arrayContains),
        ("array-contains-any", .arrayContainsAny), ("in", .in), ("not-in", .notIn),
    ])
    func operatorSymbols(symbol: String, op: FilterOperator) {
        #expect(FilterOperator(symbol: symbol) == op)
        #expect(op.symbol == symbol)
    }

    @Test func unknownSymbol() {
        #expect(FilterOperator(symbol: "=") == nil)
        #expect(FilterOperator(symbol: "contains") == nil)
    }
}

@Suite("Query normalizedOrderBy", .timeLimit(.minutes(2)))
struct NormalizedOrderByTests {
    private static func order(_ segments: String..., descending: Bool = false) -> QueryOrder {
        QueryOrder(field: FieldPath(uncheckedSegments: segments), descending: descending)
    }

    @Test func inequalityAddsFieldThenName() throws {
        let query = try makeDB().collection("c").whereField("a", isGreaterThan: 1)
        #expect(query.normalizedOrderBy == [Self.order("a"), Self.order("__name__")])
    }

    @Test func descendingOrderAddsNameDescending() throws {
        let query = try makeDB().collection("c").order(by: "a", descending: true)
        #expect(
            query.normalizedOrderBy == [Self.order("a", descending: true), Self.order("__name__", descending: true)])
    }

    @Test func noOrderIsName() throws {
        #expect(try makeDB().collection("c").query.normalizedOrderBy == [Self.order("__name__")])
    }

    @Test func equalityAddsNothing() throws {
        let query = try makeDB().collection("c").whereField("a", isEqualTo: 1).whereField("t", arrayContains: "x")
        #expect(query.normalizedOrderBy == [Self.order("__name__")])
    }

    @Test func severalInequalitiesInFieldOrder() throws {
        let query = try makeDB().collection("c").whereField("b", isGreaterThan: 1).whereField("a", isLessThan: 5)
            .whereField("c", isNotEqualTo: 2).whereField("d", notIn: [1])
        #expect(
            query.normalizedOrderBy == [
                Self.order("a"), Self.order("b"), Self.order("c"), Self.order("d"), Self.order("__name__"),
            ])
    }

    @Test func inequalityAfterExplicitOrderTakesItsDirection() throws {
        let query = try makeDB().collection("c").whereField("a", isGreaterThan: 1).order(by: "c", descending: true)
        #expect(
            query.normalizedOrderBy == [
                Self.order("c", descending: true), Self.order("a", descending: true),
                Self.order("__name__", descending: true),
            ])
    }

    @Test func inequalityFieldAlreadyOrdered() throws {
        let query = try makeDB().collection("c").whereField("a", isLessThan: 4).order(by: "a", descending: true)
        #expect(
            query.normalizedOrderBy == [Self.order("a", descending: true), Self.order("__name__", descending: true)])
    }

    @Test func explicitNameOrderIsNotRepeated() throws {
        let query = try makeDB().collection("c").order(by: FieldPath.documentID, descending: true)
        #expect(query.normalizedOrderBy == [Self.order("__name__", descending: true)])
    }

    /// The server appends inequality fields in field-path order, which compares segment by segment
    /// (firebase-js-sdk `queryNormalizedOrderBy` sorts with `FieldPath.comparator`), not by the quoted text.
    // .bug("normalizedOrderBy sorts inequality fields by their quoted description, not segment by segment")
    @Test(arguments: [
        ("a.z", "a-b", [["a", "z"], ["a-b"]]),
        ("Zone", "2fa", [["2fa"], ["Zone"]]),
        ("b", "a.c", [["a", "c"], ["b"]]),
    ])
    func inequalityFieldsSortSegmentBySegment(first: String, second: String, expected: [[String]]) throws {
        let query = try makeDB().collection("c").whereField(first, isGreaterThan: 1).whereField(second, isLessThan: 5)
        #expect(query.normalizedOrderBy.map(\.field.segments) == expected + [["__name__"]])
    }

    @Test func unaryInequalityNotNull() throws {
        let query = try makeDB().collection("c").whereField("a", isNotEqualTo: FirestoreValue.null)
        #expect(query.normalizedOrderBy == [Self.order("a"), Self.order("__name__")])
    }
}
