import FirestoreFeedCLI
import FirestoreREST
import Foundation
import Testing

/// One line of an `import` file (`ImportLine`) and its round trip with what `export` prints
/// (`OutputFormat.exportJSON`): every value type comes back as it was.
@Suite(.timeLimit(.minutes(2))) struct ImportLineTests {
    /// A document holding every value type, the edge values included.
    static func everyType() throws -> [String: FirestoreValue] {
        [
            "null": .null, "true": .boolean(true), "false": .boolean(false), "int": .integer(Int64.max),
            "negative": .integer(Int64.min), "double": .double(0.1), "nan": .double(.nan),
            "infinity": .double(.infinity), "minusInfinity": .double(-.infinity), "negativeZero": .double(-0.0),
            "timestamp": .timestamp(try Timestamp(rfc3339: "2024-02-29T23:59:59.123456Z")),
            "string": .string("é\u{0}\"\n😀"), "bytes": .bytes(Data([0, 1, 2, 254, 255])),
            "reference": .reference("projects/p/databases/(default)/documents/fruits/apple"),
            "geo": .geoPoint(GeoPoint(latitude: -33.86, longitude: 151.21)), "array": [1, "a", ["m": true]],
            "map": ["nested": ["deeper": 1.5]], "vector": ["__type__": "__vector__", "value": [1.0, -2.5]],
            "emptyArray": [], "emptyMap": [:],
        ]
    }

    @Test func exportOutputImportsToTheSameValues() throws {
        let db = try Firestore.emulator(host: "127.0.0.1:1", projectID: "p")
        let fields = try Self.everyType()
        let snapshot = DocumentSnapshot(
            reference: db.document("fruits/apple"),
            document: Document(
                name: "projects/p/databases/(default)/documents/fruits/apple", fields: fields,
                createTime: try Timestamp(rfc3339: "2024-01-01T00:00:00Z"),
                updateTime: try Timestamp(rfc3339: "2024-01-02T00:00:00Z")))
        let line = OutputFormat.exportJSON(snapshot).serializedString()
        #expect(line.hasPrefix(#"{"createTime":"2024-01-01T00:00:00Z","fields":{"array":{"arrayValue":"#))
        #expect(line.hasSuffix(#""id":"apple","path":"fruits/apple","updateTime":"2024-01-02T00:00:00Z"}"#))
        #expect(line.contains(#""nan":{"doubleValue":"NaN"}"#))
        #expect(line.contains(#""int":{"integerValue":"9223372036854775807"}"#))
        let parsed = try ImportLine(parsing: line)
        #expect(parsed == ImportLine(id: "apple", fields: fields))
        // -0.0 == 0.0 for FirestoreValue, so its sign is checked on its own.
        guard case .double(let zero)? = parsed.fields["negativeZero"] else {
            Issue.record("negativeZero is not a double")
            return
        }
        #expect(zero.sign == .minus)
    }

    @Test func plainDataAndAnAutomaticID() throws {
        #expect(
            try ImportLine(parsing: #"{"data":{"n":1,"d":1.0,"s":"x"}}"#)
                == ImportLine(id: nil, fields: ["n": .integer(1), "d": .double(1), "s": .string("x")]))
        #expect(try ImportLine(parsing: #"{"id":"a","fields":{}}"#) == ImportLine(id: "a", fields: [:]))
    }

    @Test(arguments: [
        ("[]", "expected a JSON object {\"id\",\"data\"} or {\"id\",\"fields\"}, found array"),
        ("{", "not JSON (invalid JSON at byte 1: expected a string key)"),
        (#"{"id":"a"}"#, #"no "data" (plain JSON) or "fields" (Firestore REST values) object"#),
        (#"{"id":"a","data":{},"fields":{}}"#, #"both "data" and "fields": give one"#),
        (#"{"id":"a","data":[1]}"#, #""data" must be an object, found array"#),
        (#"{"id":"a","fields":"x"}"#, #""fields" must be an object, found string"#),
        (#"{"id":"a/b","data":{}}"#, #""id" must be a document ID (a non-empty string without /), found "a/b""#),
        (#"{"id":"","data":{}}"#, #""id" must be a document ID (a non-empty string without /), found """#),
        (#"{"id":7,"data":{}}"#, #""id" must be a document ID (a non-empty string without /), found 7"#),
        (
            #"{"id":"a","dat":{}}"#,
            #"unknown member "dat" (expected id, and data or fields; path, createTime and updateTime are ignored)"#
        ),
        (#"{"id":"a","data":{"n":18446744073709551616}}"#, "the integer 18446744073709551616 does not fit in 64 bits"),
        (
            #"{"id":"a","fields":{"n":{"integerValue":"x"}}}"#,
            #"fields.n: integerValue must be a decimal 64-bit integer, found "x""#
        ),
        (#"{"id":"a","fields":{"n":3}}"#, "fields.n: expected a Value object, found number"),
    ])
    func badLinesSayWhatIsWrong(text: String, message: String) {
        let error = #expect(throws: FirestoreError.self) { try ImportLine(parsing: text) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == message)
    }
}
