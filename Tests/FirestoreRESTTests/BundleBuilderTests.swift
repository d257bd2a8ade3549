import Foundation
import Testing

@testable import FirestoreREST

/// Bundles byte for byte as the Node SDK's `BundleBuilder.build()` writes them for the same inputs: the cases of
/// nodejs-firestore's `dev/test/bundle.ts` (project `test-project`, bundle `test-bundle`), with each document's
/// fields in the order the server sends them (sorted), and the rules behind them (protobuf.js JSON: members by
/// field number, int64 as strings, `{"seconds","nanos"}` timestamps without zero parts; `JSON.stringify`'s numbers
/// and key order).
@Suite(.timeLimit(.minutes(2))) struct BundleBuilderTests {
    static let root = "projects/test-project/databases/(default)/documents"

    static func db() throws -> Firestore {
        try Firestore.emulator(host: "127.0.0.1:9", projectID: "test-project")
    }

    static func snapshot(_ db: Firestore, _ id: String, bar: Int64?, readTime: Timestamp) throws -> DocumentSnapshot {
        var fields: [String: FirestoreValue] = [:]
        if let bar { fields = ["foo": "value", "bar": .integer(bar)] }
        let document = Document(
            name: "\(root)/collectionId/\(id)", fields: fields, createTime: ts(1, 2_000_000), updateTime: ts(3, 4000))
        return DocumentSnapshot(firestore: db, document: document, readTime: readTime)
    }

    /// Node: 'succeeds with document snapshots': the same document twice, the newer read time wins.
    @Test func documentSnapshots() throws {
        let db = try Self.db()
        let bundle = db.bundle("test-bundle")
        try bundle.add(Self.snapshot(db, "doc1", bar: 42, readTime: ts(1_577_836_805, 6)))
        try bundle.add(Self.snapshot(db, "doc1", bar: -42, readTime: ts(5, 6)))
        let expected =
            #"131{"metadata":{"id":"test-bundle","createTime":{"seconds":"1577836805","nanos":6},"version":1,"#
            + #""totalDocuments":1,"totalBytes":"416"}}161{"documentMetadata":{"name":"projects/test-project/"#
            + #"databases/(default)/documents/collectionId/doc1","readTime":{"seconds":"1577836805","nanos":6},"#
            + #""exists":true}}249{"document":{"name":"projects/test-project/databases/(default)/documents/"#
            + #"collectionId/doc1","fields":{"bar":{"integerValue":"42"},"foo":{"stringValue":"value"}},"#
            + #""createTime":{"seconds":"1","nanos":2000000},"updateTime":{"seconds":"3","nanos":4000}}}"#
        #expect(String(decoding: bundle.build(), as: UTF8.self) == expected)
    }

    /// Node: 'succeeds with query snapshots': the named query, then its document with the query's name.
    @Test func querySnapshots() throws {
        let db = try Self.db()
        let snap = try Self.snapshot(db, "doc1", bar: nil, readTime: ts(1_577_836_805, 6))
        let query = db.collection("collectionId").whereField("value", isEqualTo: "string")
        let bundle = db.bundle("test-bundle")
        try bundle.add(
            "test-query",
            QuerySnapshot(
                query: query, documents: [snap], documentChanges: [], readTime: ts(1_577_836_805, 6)))
        let expected =
            #"131{"metadata":{"id":"test-bundle","createTime":{"seconds":"1577836805","nanos":6},"version":1,"#
            + #""totalDocuments":1,"totalBytes":"720"}}345{"namedQuery":{"name":"test-query","bundledQuery":{"#
            + #""parent":"projects/test-project/databases/(default)/documents","structuredQuery":{"from":[{"#
            + #""collectionId":"collectionId"}],"where":{"fieldFilter":{"field":{"fieldPath":"value"},"op":"EQUAL","#
            + #""value":{"stringValue":"string"}}}},"limitType":"FIRST"},"readTime":{"seconds":"1577836805","#
            + #""nanos":6}}}186{"documentMetadata":{"name":"projects/test-project/databases/(default)/documents/"#
            + #"collectionId/doc1","readTime":{"seconds":"1577836805","nanos":6},"exists":true,"queries":["#
            + #""test-query"]}}180{"document":{"name":"projects/test-project/databases/(default)/documents/"#
            + #"collectionId/doc1","createTime":{"seconds":"1","nanos":2000000},"updateTime":{"seconds":"3","#
            + #""nanos":4000}}}"#
        #expect(String(decoding: bundle.build(), as: UTF8.self) == expected)
        #expect(
            throws: FirestoreError(
                code: .invalidArgument, message: "Query name conflict: test-query has already been added.")
        ) {
            try bundle.add(
                "test-query", QuerySnapshot(query: query, documents: [], documentChanges: [], readTime: ts(1)))
        }
    }

    /// Node: 'succeeds when nothing is added'.
    @Test func nothingAdded() throws {
        let bundle = try Self.db().bundle("test-bundle")
        #expect(
            String(decoding: bundle.build(), as: UTF8.self)
                == #"97{"metadata":{"id":"test-bundle","createTime":{},"version":1,"totalDocuments":0,"totalBytes":"0"}}"#
        )
    }

    /// Node: 'succeeds with multiple calls to build()': a second build after one more document keeps the first
    /// document's elements and counts two.
    @Test func multipleBuilds() throws {
        let db = try Self.db()
        let bundle = db.bundle("test-bundle")
        try bundle.add(Self.snapshot(db, "doc1", bar: 42, readTime: ts(1_577_836_805, 6)))
        let first = String(decoding: bundle.build(), as: UTF8.self)
        try bundle.add(Self.snapshot(db, "doc2", bar: -42, readTime: ts(5, 6)))
        let second = String(decoding: bundle.build(), as: UTF8.self)
        #expect(
            second.hasPrefix(
                #"131{"metadata":{"id":"test-bundle","createTime":{"seconds":"1577836805","nanos":6},"version":1,"#
                    + #""totalDocuments":2,"totalBytes":"824"}}"#))
        #expect(second.contains(first.dropFirst(131 + 3)))
        #expect(
            second.hasSuffix(
                #"{"document":{"name":"projects/test-project/databases/(default)/documents/collectionId/doc2","#
                    + #""fields":{"bar":{"integerValue":"-42"},"foo":{"stringValue":"value"}},"createTime":{"#
                    + #""seconds":"1","nanos":2000000},"updateTime":{"seconds":"3","nanos":4000}}}"#))
    }

    @Test func everyValueType() throws {
        let fields: [String: FirestoreValue] = [
            "n": .null, "b": true, "i": -7, "d": 1.5, "nan": .double(.nan), "t": .timestamp(ts(5, 6)),
            "s": "x\"y\n", "by": .bytes(Data([1, 2, 255])),
            "r": .reference("projects/p/databases/(default)/documents/c/d"),
            "g": .geoPoint(GeoPoint(latitude: 0, longitude: -1.25)), "a": [], "a2": [1], "m": [:], "m2": ["k": "v"],
        ]
        let expected =
            #"{"a":{"arrayValue":{}},"a2":{"arrayValue":{"values":[{"integerValue":"1"}]}},"#
            + #""b":{"booleanValue":true},"by":{"bytesValue":"AQL/"},"d":{"doubleValue":1.5},"#
            + #""g":{"geoPointValue":{"latitude":0,"longitude":-1.25}},"i":{"integerValue":"-7"},"#
            + #""m":{"mapValue":{}},"m2":{"mapValue":{"fields":{"k":{"stringValue":"v"}}}},"#
            + #""n":{"nullValue":"NULL_VALUE"},"nan":{"doubleValue":"NaN"},"#
            + #""r":{"referenceValue":"projects/p/databases/(default)/documents/c/d"},"#
            + #""s":{"stringValue":"x\"y\n"},"t":{"timestampValue":{"seconds":"5","nanos":6}}}"#
        #expect(String(decoding: BundleJSON.fields(fields).bytes, as: UTF8.self) == expected)
    }

    /// A limit-to-last query is bundled as written (orders not flipped) with `limitType` `LAST` and the limit
    /// as an `Int32Value`; members follow the field numbers (`limit` 5 before `offset` 6 before `startAt` 7).
    @Test func aLimitToLastQueryIsBundledAsWritten() throws {
        let db = try Self.db()
        let query = db.collection("fruits").whereField("kcal", isGreaterThan: 50)
            .whereField("color", in: ["red", "green"]).order(by: "kcal", descending: true).start(at: [100])
            .end(before: [10]).select(["name"]).offset(1).limit(toLast: 3)
        let bundle = db.bundle("b")
        try bundle.add("q", QuerySnapshot(query: query, documents: [], documentChanges: [], readTime: ts(7)))
        let text = String(decoding: bundle.build(), as: UTF8.self)
        let expected =
            #"{"namedQuery":{"name":"q","bundledQuery":{"parent":"projects/test-project/databases/(default)/"#
            + #"documents","structuredQuery":{"select":{"fields":[{"fieldPath":"name"}]},"from":[{"collectionId":"#
            + #""fruits"}],"where":{"compositeFilter":{"op":"AND","filters":[{"fieldFilter":{"field":{"fieldPath":"#
            + #""kcal"},"op":"GREATER_THAN","value":{"integerValue":"50"}}},{"fieldFilter":{"field":{"fieldPath":"#
            + #""color"},"op":"IN","value":{"arrayValue":{"values":[{"stringValue":"red"},{"stringValue":"green"}]}}}}"#
            + #"]}},"orderBy":[{"field":{"fieldPath":"kcal"},"direction":"DESCENDING"}],"limit":{"value":3},"#
            + #""offset":1,"startAt":{"values":[{"integerValue":"100"}],"before":true},"endAt":{"values":[{"#
            + #""integerValue":"10"}],"before":true}},"limitType":"LAST"},"readTime":{"seconds":"7"}}}"#
        #expect(text.contains(expected))
    }

    @Test func aMissingDocumentWithoutAReadTimeIsRefused() throws {
        let db = try Self.db()
        let missing = DocumentSnapshot(reference: db.document("c/gone"), document: nil)
        #expect(
            throws: FirestoreError(
                code: .invalidArgument,
                message: "cannot bundle c/gone: a missing document without a read time (read it with getAll)")
        ) {
            try db.bundle("b").add(missing)
        }
        let atRead = DocumentSnapshot(reference: db.document("c/gone"), document: nil, readTime: ts(9))
        let text = String(decoding: try db.bundle("b").add(atRead).build(), as: UTF8.self)
        #expect(
            text.hasSuffix(
                #"{"documentMetadata":{"name":"projects/test-project/databases/(default)/documents/c/gone","#
                    + #""readTime":{"seconds":"9"},"exists":false}}"#))
    }

    @Test(arguments: [
        (0.1, "0.1"), (100, "100"), (1e21, "1e+21"), (1e-7, "1e-7"), (0.000001, "0.000001"),
        (1.234_567_890_123_456_8e20, "123456789012345680000"), (-0.0, "0"), (1.5e300, "1.5e+300"),
        (.leastNonzeroMagnitude, "5e-324"), (-2.5, "-2.5"), (.nan, "NaN"), (-.infinity, "-Infinity"),
        (0.000_012_5, "0.0000125"),
        (1_234_567.125, "1234567.125"),
    ])
    func javaScriptNumbers(number: Double, text: String) {
        #expect(BundleJSON.javaScriptNumber(number) == text)
    }

    @Test func javaScriptKeyOrder() {
        #expect(
            BundleJSON.javaScriptKeyOrder(["b", "10", "a", "2", "01", "4294967295", "4294967294", "é", "B"])
                == ["2", "10", "4294967294", "01", "4294967295", "B", "a", "b", "é"])
    }
}
