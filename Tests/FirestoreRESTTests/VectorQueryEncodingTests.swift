import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// `findNearest` as the REST StructuredQuery `findNearest` (googleapis `google/firestore/v1/query.proto`,
/// `StructuredQuery.FindNearest`): the base query's members, then `vectorField`, `queryVector` (a vector Value),
/// `distanceMeasure`, `limit` (an `Int32Value`: a JSON number), `distanceResultField` (a string) and
/// `distanceThreshold` (a `DoubleValue`: a JSON number), written out as the server takes them.
@Suite(.timeLimit(.minutes(2))) struct VectorQueryEncodingTests {
    static let db: Firestore = {
        guard let db = try? Firestore.offline()
        else { preconditionFailure("a static, valid project") }
        return db
    }()

    static let vector12 =
        #"{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"value":{"arrayValue":{"values":[{"doubleValue":1.0},{"doubleValue":2.0}]}}}}}"#

    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let expected: String
        let build: @Sendable (CollectionReference) -> VectorQuery
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "euclidean",
            expected:
                #"{"findNearest":{"distanceMeasure":"EUCLIDEAN","limit":3,"queryVector":"# + vector12
                + #","vectorField":{"fieldPath":"embedding"}},"from":[{"collectionId":"c"}]}"#
        ) { $0.findNearest(vectorField: "embedding", queryVector: [1, 2], limit: 3, distanceMeasure: .euclidean) },
        Case(
            name: "cosine, with a result field",
            expected:
                #"{"findNearest":{"distanceMeasure":"COSINE","distanceResultField":"distance","limit":1000,"queryVector":"#
                + vector12 + #","vectorField":{"fieldPath":"embedding"}},"from":[{"collectionId":"c"}]}"#
        ) {
            $0.findNearest(
                vectorField: "embedding", queryVector: VectorValue([1, 2]), limit: 1000, distanceMeasure: .cosine,
                distanceResultField: "distance")
        },
        Case(
            name: "dot product, with a threshold, after a filter",
            expected:
                #"{"findNearest":{"distanceMeasure":"DOT_PRODUCT","distanceThreshold":0.5,"limit":1,"queryVector":"#
                + vector12
                + #","vectorField":{"fieldPath":"a.b"}},"from":[{"collectionId":"c"}],"where":{"fieldFilter":{"field":{"fieldPath":"color"},"op":"EQUAL","value":{"stringValue":"red"}}}}"#
        ) {
            $0.whereField("color", isEqualTo: "red").findNearest(
                vectorField: "a.b", queryVector: [1, 2], limit: 1, distanceMeasure: .dotProduct,
                distanceThreshold: 0.5)
        },
        Case(
            name: "field paths, quoted",
            expected:
                #"{"findNearest":{"distanceMeasure":"EUCLIDEAN","distanceResultField":"`my dist`","distanceThreshold":2.0,"limit":2,"queryVector":"#
                + vector12 + #","vectorField":{"fieldPath":"`em.b`"}},"from":[{"collectionId":"c"}]}"#
        ) { collection in
            guard let field = try? FieldPath(["em.b"]), let result = try? FieldPath(["my dist"]) else {
                preconditionFailure("valid written-out field paths")
            }
            return collection.findNearest(
                vectorField: field, queryVector: VectorValue([1, 2]), limit: 2, distanceMeasure: .euclidean,
                distanceResultField: result, distanceThreshold: 2)
        },
        Case(
            name: "a collection group's order is sent as given",
            expected:
                #"{"findNearest":{"distanceMeasure":"EUCLIDEAN","limit":5,"queryVector":"# + vector12
                + #","vectorField":{"fieldPath":"e"}},"from":[{"allDescendants":true,"collectionId":"c"}],"orderBy":[{"direction":"ASCENDING","field":{"fieldPath":"n"}}]}"#
        ) { _ in
            db.collectionGroup("c").order(by: "n").findNearest(
                vectorField: "e", queryVector: [1, 2], limit: 5, distanceMeasure: .euclidean)
        },
    ]

    @Test(arguments: cases) func encodesExactly(_ test: Case) throws {
        let query = test.build(Self.db.collection("c"))
        #expect(try query.structuredQuery().serializedString() == test.expected)
    }

    static let refusals: [(String, @Sendable (CollectionReference) -> VectorQuery)] = [
        (
            "findNearest: the query vector is empty",
            { $0.findNearest(vectorField: "e", queryVector: [], limit: 1, distanceMeasure: .cosine) }
        ),
        (
            "findNearest: limit must be 1 ... 1000, got 0",
            { $0.findNearest(vectorField: "e", queryVector: [1], limit: 0, distanceMeasure: .cosine) }
        ),
        (
            "findNearest: limit must be 1 ... 1000, got 1001",
            { $0.findNearest(vectorField: "e", queryVector: [1], limit: 1001, distanceMeasure: .cosine) }
        ),
        (
            "findNearest: distanceResultField is empty (pass nil for none)",
            {
                $0.findNearest(
                    vectorField: "e", queryVector: [1], limit: 1, distanceMeasure: .cosine, distanceResultField: "")
            }
        ),
        (
            "findNearest: distanceThreshold must be a finite number, got nan",
            {
                $0.findNearest(
                    vectorField: "e", queryVector: [1], limit: 1, distanceMeasure: .cosine, distanceThreshold: .nan)
            }
        ),
        (
            "findNearest: invalid vectorField: invalid field path \"a..b\": empty segment",
            { $0.findNearest(vectorField: "a..b", queryVector: [1], limit: 1, distanceMeasure: .cosine) }
        ),
    ]

    /// Invalid inputs are refused before anything is sent, with the SDK's checks (Node `findNearest()`).
    @Test func invalidInputsAreRefusedBeforeSending() async throws {
        for (message, build) in Self.refusals {
            let query = build(Self.db.collection("c"))
            #expect(throws: FirestoreError.invalidArgument(message)) { try query.structuredQuery() }
            // getDocuments throws the same, not the transport's unavailable.
            await #expect(throws: FirestoreError.invalidArgument(message)) { try await query.getDocuments() }
        }
    }

    /// The measures' REST names (`StructuredQuery.FindNearest.DistanceMeasure`).
    @Test func distanceMeasureNames() {
        #expect(DistanceMeasure.allCases.map(\.rawValue) == ["EUCLIDEAN", "COSINE", "DOT_PRODUCT"])
    }
}
