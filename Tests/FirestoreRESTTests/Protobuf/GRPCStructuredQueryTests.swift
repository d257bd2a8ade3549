import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// `google.firestore.v1.StructuredQuery` (`google/firestore/v1/query.proto`) from ``Query``'s wire model
/// (``StructuredQuery/protobuf()``). Expected bytes are worked out by hand from `query.proto`'s field numbers; every
/// query of the REST encoder's tables must also give the bytes of the JSON translation written a second way
/// (`StructuredQueryProtobuf.encode`, in test support).
@Suite("GRPC StructuredQuery", .timeLimit(.minutes(2)))
struct GRPCStructuredQueryTests {
    private static func makeDB() throws -> Firestore {
        try Firestore.offline()
    }

    @Test("where, order_by, limit (Int32Value) and offset")
    func filterOrderLimitOffset() throws {
        let query = try Self.makeDB().collection("c").whereField("a", isEqualTo: 1).order(by: "a", descending: true)
            .limit(to: 5).offset(2)
        let expected = hex(
            """
            12 03 12 01 63
            1a 0d 12 0b 0a 03 12 01 61 10 05 1a 02 10 01
            22 07 0a 03 12 01 61 10 02
            2a 02 08 05
            30 02
            """)
        // from { collection_id "c" }
        // where { field_filter { field { field_path "a" } op EQUAL(5) value { integer_value 1 } } }
        // order_by { field { field_path "a" } direction DESCENDING(2) }
        // limit { value 5 }  offset 2
        #expect(try query.structuredQueryProtobuf() == expected)
    }

    @Test("select, all_descendants, an OR of a unary and a field filter, cursors with before")
    func selectGroupCompositeCursors() throws {
        let query = try Self.makeDB().collectionGroup("g").select(["a"])
            .whereFilter(
                .orFilter([.whereField("x", isEqualTo: FirestoreValue.null), .whereField("y", isLessThan: 2)])
            )
            .order(by: "y").start(at: [1]).end(before: [5])
        let expected = hex(
            """
            0a 05 12 03 12 01 61
            12 05 12 01 67 18 01
            1a 1e 0a 1c 08 02
                12 09 1a 07 08 03 12 03 12 01 78
                12 0d 12 0b 0a 03 12 01 79 10 01 1a 02 10 02
            22 07 0a 03 12 01 79 10 01
            3a 06 0a 02 10 01 10 01
            42 06 0a 02 10 05 10 01
            """)
        // select { fields { field_path "a" } }
        // from { collection_id "g" all_descendants true }
        // where { composite_filter { op OR(2)
        //     filters { unary_filter { op IS_NULL(3) field { field_path "x" } } }
        //     filters { field_filter { field { field_path "y" } op LESS_THAN(1) value { integer_value 2 } } } } }
        // order_by { field { field_path "y" } direction ASCENDING(1) }
        // start_at { values { integer_value 1 } before true }  end_at { values { integer_value 5 } before true }
        #expect(try query.structuredQueryProtobuf() == expected)
    }

    static let fieldOperators: [(FilterOperator, UInt8)] = [
        (.lessThan, 1), (.lessThanOrEqual, 2), (.greaterThan, 3), (.greaterThanOrEqual, 4), (.equal, 5),
        (.notEqual, 6), (.arrayContains, 7), (.in, 8), (.arrayContainsAny, 9), (.notIn, 10),
    ]

    @Test("every FieldFilter.Operator number", arguments: fieldOperators)
    func fieldOperator(op: FilterOperator, number: UInt8) throws {
        let collection = try Self.makeDB().collection("c")
        if op.takesArray {
            let bytes = try collection.whereField("a", op, [1]).query.structuredQueryProtobuf()
            // value { array_value { values { integer_value 1 } } }
            #expect(
                bytes == hex("12 03 12 01 63 1a 11 12 0f 0a 03 12 01 61 10") + [number] + hex("1a 06 4a 04 0a 02 10 01")
            )
        } else {
            let bytes = try collection.whereField("a", op, 1).query.structuredQueryProtobuf()
            #expect(bytes == hex("12 03 12 01 63 1a 0d 12 0b 0a 03 12 01 61 10") + [number] + hex("1a 02 10 01"))
        }
    }

    @Test(
        "every UnaryFilter.Operator number",
        arguments: [
            (FilterOperator.equal, FirestoreValue.double(.nan), UInt8(2)), (.equal, .null, 3),
            (.notEqual, .double(.nan), 4), (.notEqual, .null, 5),
        ])
    func unaryOperator(op: FilterOperator, value: FirestoreValue, number: UInt8) throws {
        let bytes = try Self.makeDB().collection("c").whereField("a", op, value).query.structuredQueryProtobuf()
        #expect(bytes == hex("12 03 12 01 63 1a 09 1a 07 08") + [number] + hex("12 03 12 01 61"))
    }

    @Test("limit 0 is an empty Int32Value; offset 0 is left out")
    func zeroLimitAndOffset() throws {
        let query = try Self.makeDB().collection("c").limit(to: 0).offset(0)
        #expect(try query.structuredQueryProtobuf() == hex("12 03 12 01 63 2a 00"))
    }

    @Test("an offset or limit outside Int32 cannot be encoded (the Query builder refuses such limits first)")
    func limitOutOfRange() throws {
        #expect(
            throws: FirestoreError.invalidArgument(
                "StructuredQuery.limit 3000000000 does not fit the protobuf int32 field")
        ) {
            try StructuredQuery(from: .init(collectionID: "c"), limit: 3_000_000_000).protobuf()
        }
        #expect(
            throws: FirestoreError.invalidArgument(
                "StructuredQuery.offset -2147483649 does not fit the protobuf int32 field")
        ) {
            try StructuredQuery(from: .init(collectionID: "c"), offset: -2_147_483_649).protobuf()
        }
    }

    @Test("findNearest is StructuredQuery.find_nearest = 9, every member in field-number order")
    func findNearest() throws {
        let structured = StructuredQuery(
            from: .init(collectionID: "c"),
            findNearest: .init(
                vectorField: try FieldPath(["e"]), queryVector: .null, distanceMeasure: .cosine, limit: 3,
                distanceResultField: "d", distanceThreshold: 0.5))
        let query = try json(
            #"{"from":[{"collectionId":"c"}],"findNearest":{"vectorField":{"fieldPath":"e"},"#
                + #""queryVector":{"nullValue":null},"distanceMeasure":"COSINE","limit":3,"#
                + #""distanceResultField":"d","distanceThreshold":0.5}}"#)
        #expect(structured.restJSON == query)
        #expect(try StructuredQueryProtobuf.encode(query) == (try structured.protobuf()))
        #expect(
            try structured.protobuf() == [
                0x12, 0x03, 0x12, 0x01, 0x63,  // from { collection_id: "c" }
                0x4A, 0x1D,  // find_nearest, 29 bytes
                0x0A, 0x03, 0x12, 0x01, 0x65,  // vector_field { field_path: "e" }
                0x12, 0x02, 0x58, 0x00,  // query_vector { null_value: NULL_VALUE }
                0x18, 0x02,  // distance_measure: COSINE
                0x22, 0x02, 0x08, 0x03,  // limit { value: 3 }
                0x2A, 0x01, 0x64,  // distance_result_field: "d"
                0x32, 0x09, 0x09, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xE0, 0x3F,  // distance_threshold { value: 0.5 }
            ])
    }

    @Test("the JSON translation (the printer's oracle) refuses a member it does not know, never drops it")
    func unknownMember() throws {
        let unknown = try json(#"{"from":[{"collectionId":"c"}],"findFarthest":{}}"#)
        #expect(
            throws: FirestoreError(
                code: .internal,
                message: "StructuredQuery: member \"findFarthest\" has no protobuf encoding in this client")
        ) {
            try StructuredQueryProtobuf.encode(unknown)
        }
        let badOp = try json(#"{"where":{"unaryFilter":{"op":"IS_EMPTY","field":{"fieldPath":"a"}}}}"#)
        #expect(
            throws: FirestoreError(
                code: .internal, message: "StructuredQuery.where.unaryFilter.op: unknown enum value \"IS_EMPTY\"")
        ) {
            try StructuredQueryProtobuf.encode(badOp)
        }
    }

    @Test(
        "every query of the REST encoder's tables prints the bytes its REST JSON translates to",
        arguments: StructuredQueryTests.operatorCases + StructuredQueryTests.specialCases)
    func restTablesTranslate(queryCase: QueryCase) throws {
        let query = queryCase.build(try Self.makeDB().collection("c"))
        let bytes = try query.structuredQueryProtobuf()
        #expect(bytes == (try StructuredQueryProtobuf.encode(try query.structuredQuery())))
    }

    @Test("a query error is thrown as the REST encoder throws it")
    func queryErrorsPassThrough() throws {
        let query = try Self.makeDB().collection("c").whereField("a", isLessThan: FirestoreValue.null)
        #expect(throws: FirestoreError.invalidArgument("invalid filter a < null: null only supports == and !=")) {
            try query.structuredQueryProtobuf()
        }
    }
}
