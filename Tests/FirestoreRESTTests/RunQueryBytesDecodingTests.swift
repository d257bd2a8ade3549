import Foundation
import Testing

@testable import FirestoreREST

/// `Firestore.decodeRunQuery(body:)` decodes an element of the common shape straight from its bytes
/// (`RunQueryElementDecoder`, issue 37) and leaves every other element to its JSON tree: written-out results for
/// the common shape, and for everything else the same result or the same error as the tree path.
@Suite("runQuery decoding from bytes", .timeLimit(.minutes(2)))
struct RunQueryBytesDecodingTests {
    static let documentName = "projects/p/databases/(default)/documents/c/d"

    /// One document element holding every value kind, with the escapes and spellings the wire may use.
    static let everyKindElement = #"""
        {"document":{"name":"projects/p/databases/(default)/documents/c/d\u00e9","fields":{
          "n":{"nullValue":null},"b":{"booleanValue":true},"f":{"booleanValue":false},
          "i":{"integerValue":"-9007199254740993"},"j":{"integerValue":42},
          "d":{"doubleValue":-0.0},"z":{"doubleValue":-0},"e":{"doubleValue":1.5E3},"w":{"doubleValue":7},
          "nan":{"doubleValue":"NaN"},"inf":{"doubleValue":"-Infinity"},"pinf":{"doubleValue":"Infinity"},
          "t":{"timestampValue":"2024-05-01T00:00:00.123456Z"},
          "s":{"stringValue":"a\nb\"c\\d\/e\u00e9\ud83d\ude00 \u00fc ü"},
          "y":{"bytesValue":"AAEC/w=="},
          "r":{"referenceValue":"projects/p/databases/(default)/documents/c/x"},
          "g":{"geoPointValue":{"longitude":-2,"latitude":1.5}},"g0":{"geoPointValue":{}},
          "a":{"arrayValue":{"values":[{"integerValue":"1"},{"arrayValue":{}}]}},"a0":{"arrayValue":{}},
          "m":{"mapValue":{"fields":{"k\u00e9":{"stringValue":"v"}}}},"m0":{"mapValue":{}}
        },"updateTime":"2024-05-01T00:00:01.5Z","createTime":"2024-05-01T00:00:00Z"},
        "readTime":"2024-05-01T00:00:02Z"}
        """#

    static let expectedFields: [String: FirestoreValue] = [
        "n": .null, "b": .boolean(true), "f": .boolean(false),
        "i": .integer(-9_007_199_254_740_993), "j": .integer(42),
        "d": .double(-0.0), "z": .double(0.0), "e": .double(1500), "w": .double(7),
        "nan": .double(.nan), "inf": .double(-.infinity), "pinf": .double(.infinity),
        "t": .timestamp(ts(1_714_521_600, 123_456_000)),
        "s": .string("a\nb\"c\\d/e\u{E9}\u{1F600} \u{FC} \u{FC}"),
        "y": .bytes(Data([0, 1, 2, 255])),
        "r": .reference("projects/p/databases/(default)/documents/c/x"),
        "g": .geoPoint(GeoPoint(latitude: 1.5, longitude: -2)), "g0": .geoPoint(GeoPoint(latitude: 0, longitude: 0)),
        "a": .array([.integer(1), .array([])]), "a0": .array([]),
        "m": .map(["k\u{E9}": .string("v")]), "m0": .map([:]),
    ]

    @Test func everyValueKindStraightFromTheBytes() throws {
        #expect(RunQueryPaths.takesElement(Self.everyKindElement))
        let body = Data(
            ("[" + Self.everyKindElement + #",{"readTime":"2024-05-01T00:00:02Z","skippedResults":3,"done":true}]"#)
                .utf8)
        let response = try RunQueryPaths.expectSame(body).get()
        let expected = Document(
            name: "projects/p/databases/(default)/documents/c/d\u{E9}", fields: Self.expectedFields,
            createTime: ts(1_714_521_600), updateTime: ts(1_714_521_601, 500_000_000))
        #expect(response.documents == [expected])
        #expect(response.readTime == ts(1_714_521_602))
        #expect(response.skippedResults == 3)
        #expect(response.transaction == nil)
        // `==` calls -0.0 and 0.0 equal; the wire's `-0` is the integer 0, so +0.0, and `-0.0` keeps its sign.
        let fields = response.documents.first?.fields ?? [:]
        #expect(fields["d"].map { RunQueryPaths.bitPattern(of: $0) } == "d\((-0.0).bitPattern)")
        #expect(fields["z"].map { RunQueryPaths.bitPattern(of: $0) } == "d\((0.0).bitPattern)")
    }

    /// The emulator's pretty-printed shape, with a transaction element first (a `newTransaction` read).
    @Test func emulatorShapeWithTransaction() throws {
        let first = "{\n  \"transaction\": \"EQoP\",\n  \"readTime\": \"2024-05-01T00:00:03Z\"\n}"
        let second = """
            {
              "document": {
                "name": "\(Self.documentName)",
                "fields": {
                  "tags": {
                    "arrayValue": {
                      "values": [{
                        "stringValue": "west_coast"
                      }, {
                        "stringValue": "norcal"
                      }]
                    }
                  }
                },
                "createTime": "2024-05-01T00:00:00Z",
                "updateTime": "2024-05-01T00:00:00Z"
              },
              "readTime": "2024-05-01T00:00:02Z"
            }
            """
        #expect(RunQueryPaths.takesElement(first))
        #expect(RunQueryPaths.takesElement(second))
        let response = try RunQueryPaths.expectSame(Data("[\(first),\n\(second)\n]\n".utf8)).get()
        #expect(
            response
                == RunQueryResponse(
                    documents: [
                        Document(
                            name: Self.documentName,
                            fields: ["tags": .array([.string("west_coast"), .string("norcal")])],
                            createTime: ts(1_714_521_600), updateTime: ts(1_714_521_600))
                    ], readTime: ts(1_714_521_603), skippedResults: 0, transaction: "EQoP"))
    }

    /// A wrong value is the tree path's error, word for word.
    @Test func wrongValueTypeGivesTheTreePathsError() {
        let body = Data(
            #"[{"document":{"name":"projects/p/databases/(default)/documents/c/d","fields":{"f":{"integerValue":true}}},"readTime":"2024-05-01T00:00:02Z"}]"#
                .utf8)
        #expect(
            RunQueryPaths.expectSame(body)
                == .failure(
                    FirestoreError(
                        code: .internal,
                        message:
                            "runQuery element 0: document projects/p/databases/(default)/documents/c/d: field f: integerValue must be a decimal 64-bit integer, found true"
                    )))
    }

    /// Several bad fields: the error names the first by name, whatever the order of the dictionary holding them
    /// (each parse makes a new one), so the bytes path's fallback and the tree path name the same field (found by
    /// fuzzing: `Fuzz/StreamDecoders`).
    @Test func severalBadFieldsNameTheFirstByName() {
        let body = Data(
            #"[{"document":{"name":"c/d","fields":{"e":{"y":1},"a":{"x":1},"c":"1","b":{"nullValue":null}}},"readTime":"2024-05-01T00:00:02Z"}]"#
                .utf8)
        for _ in 0..<20 {
            #expect(
                RunQueryPaths.expectSame(body)
                    == .failure(
                        FirestoreError(
                            code: .internal,
                            message: "runQuery element 0: document c/d: field a: unknown value type (members: x)")))
        }
    }

    /// A bad value 20 maps deep (Firestore's nesting limit) beside a good sibling at every level: each field is
    /// decoded at most once on the way to the error (the search for the first bad field by name once decoded every
    /// field again at every level: 2^depth work, minutes for this body), and at each level the first bad field by
    /// name is the one named.
    @Test(.timeLimit(.minutes(1))) func aBadValueDeepInNestedMapsIsFoundInOnePassFirstByNameAtEachLevel() {
        var value = #"{"integerValue":"x"}"#
        for _ in 0..<20 {
            // "a" sorts before "m": good siblings first; "z" is a second bad field, after "m".
            value =
                #"{"mapValue":{"fields":{"z":{"bogus":1},"m":\#(value),"a":{"stringValue":"s"}}}}"#
        }
        let body = Data(
            #"[{"document":{"name":"c/d","fields":{"f":\#(value),"g":{"bogus":2}}},"readTime":"2024-05-01T00:00:02Z"}]"#
                .utf8)
        let path = "f" + String(repeating: ".m", count: 20)
        #expect(
            RunQueryPaths.expectSame(body)
                == .failure(
                    FirestoreError(
                        code: .internal,
                        message:
                            "runQuery element 0: document c/d: field \(path): integerValue must be a decimal 64-bit integer, found \"x\""
                    )))
    }

    /// Values outside the common shape, valid or not: each gives the tree path's result or error.
    @Test(
        arguments: [
            #"{"integerValue":"1.5"}"#, #"{"integerValue":1.0}"#, #"{"integerValue":"99999999999999999999"}"#,
            #"{"integerValue":"9223372036854775807"}"#, #"{"integerValue":-9223372036854775808}"#,
            #"{"integerValue":"+5"}"#, #"{"integerValue":"007"}"#, #"{"integerValue":"-0"}"#,
            #"{"integerValue":" 1"}"#, #"{"integerValue":"1\u0030"}"#, #"{"integerValue":01}"#,
            #"{"doubleValue":"1.5"}"#, #"{"doubleValue":"nan"}"#, #"{"doubleValue":1e400}"#,
            #"{"doubleValue":12345678901234567890}"#, #"{"doubleValue":-1.0e-400}"#, #"{"doubleValue":1.}"#,
            #"{"doubleValue":.5}"#, #"{"doubleValue":1e}"#, #"{"doubleValue":"N\u0061N"}"#, #"{"doubleValue":null}"#,
            #"{"nullValue":"NULL_VALUE"}"#, #"{"nullValue":0}"#, #"{"nullValue":nul}"#, #"{"booleanValue":tru}"#,
            #"{"booleanValue":"true"}"#, #"{"stringValue":5}"#, #"{"stringValue":"a","stringValue":"b"}"#,
            #"{"stringValue":"a","integerValue":"1"}"#, #"{"string_value":"snake"}"#, #"{"stringValue":"a","x":1}"#,
            #"{"x":1,"stringValue":"a"}"#, "{}", "[]", "5", #""s""#, #"{"stringValue":"\ud800"}"#,
            #"{"stringValue":"\udc00x"}"#, #"{"stringValue":"\ud83d\u0041"}"#, #"{"stringValue":"\x"}"#,
            #"{"stringValue":"\u00G0"}"#, "{\"stringValue\":\"a\u{01}\"}", #"{"string\u0056alue":"x"}"#,
            #"{"bytesValue":"@@"}"#, #"{"bytesValue":"AAE"}"#, #"{"bytesValue":"AA-_"}"#, #"{"bytesValue":"===="}"#,
            #"{"timestampValue":"2024-02-30T00:00:00Z"}"#, #"{"timestampValue":"2024-01-01T00:00:00+01:00"}"#,
            #"{"timestampValue":"2024-01-01t00:00:00z"}"#, #"{"timestampValue":"2024-01-01T00:00:60Z"}"#,
            #"{"timestampValue":"2024-01-01T00:00:00.1234567891Z"}"#, #"{"timestampValue":5}"#,
            #"{"geoPointValue":{"latitude":"1.5"}}"#, #"{"geoPointValue":{"latitude":1,"latitude":2}}"#,
            #"{"geoPointValue":{"lat":1}}"#, #"{"geoPointValue":[]}"#, #"{"arrayValue":{"values":{}}}"#,
            #"{"arrayValue":{"values":null}}"#, #"{"arrayValue":{"values":[5]}}"#,
            #"{"arrayValue":{"values":[],"x":1}}"#,
            #"{"arrayValue":{"values":[{"nullValue":null},]}}"#, #"{"mapValue":{"fields":[]}}"#,
            #"{"mapValue":{"fields":null}}"#,
            #"{"mapValue":{"fields":{"a":{"nullValue":null},"a":{"nullValue":null}}}}"#,
            #"{"mapValue":{"fields":{"\u00e9":{"nullValue":null},"e\u0301":{"nullValue":null}}}}"#,
            #"{"mapValue":{"fields":{"a":5}}}"#, #"{"mapValue":{"fields":{"a":{"nullValue":null},}}}"#,
            "{\"mapValue\":{\"fields\":{\"\u{FF}\":{\"nullValue\":null}}}}",
        ])
    func valueOutsideTheCommonShape(_ value: String) {
        let element =
            #"{"document":{"name":"projects/p/databases/(default)/documents/c/d","fields":{"f":"# + value
            + #"}},"readTime":"2024-05-01T00:00:02Z"}"#
        RunQueryPaths.expectSame(Data("[\(element)]".utf8))
        RunQueryPaths.expectSame(Data("[\(element),\(element)]".utf8))
    }

    /// Documents and elements outside the common shape: each gives the tree path's result or error.
    @Test(
        arguments: [
            #"{"document":{"name":3},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":{"fields":{}},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":{"name":"n","create_time":"2024-05-01T00:00:00Z"},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":{"name":"n","createTime":null,"fields":null},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":{"name":"n","createTime":"2024-13-01T00:00:00Z"},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":{"name":"n","createTime":5},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":{"name":"n","fields":[]},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":{"name":"n","foo":1},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":{"name":"n","name":"m"},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":{"name":"n"},"document":{"name":"m"},"readTime":"2024-05-01T00:00:02Z"}"#,
            #"{"document":null,"readTime":"2024-05-01T00:00:02Z"}"#, #"{"document":5}"#,
            #"{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}"#,
            #"{"readTime":"2024-05-01T00:00:02Z","error":{"code":403,"message":"no"}}"#,
            #"{"readTime":"2024-05-01T00:00:02Z","skippedResults":"2"}"#,
            #"{"readTime":"2024-05-01T00:00:02Z","skippedResults":-1}"#,
            #"{"readTime":"2024-05-01T00:00:02Z","skippedResults":2147483648}"#,
            #"{"readTime":"2024-05-01T00:00:02Z","skippedResults":2.0}"#,
            #"{"readTime":"2024-05-01T00:00:02Z","transaction":""}"#,
            #"{"readTime":"2024-05-01T00:00:02Z","transaction":5}"#, #"{"readTime":null}"#, #"{"readTime":5}"#,
            #"{"readTime":"2024-05-01T00:00:02+02:00"}"#, #"{"readTime":"2024-05-01T00:00:02Z","done":"yes"}"#,
            #"{"readTime":"2024-05-01T00:00:02Z","explainMetrics":{}}"#,
            #"{"readTime":"2024-05-01T00:00:02Z","readTime":"2024-05-01T00:00:03Z"}"#, "{}", "5", "[]", "null",
            #"{"readTime":"2024-05-01T00:00:02Z"} x"#, #"{"readTime":"2024-05-01T00:00:02Z",}"#,
        ])
    func elementOutsideTheCommonShape(_ element: String) {
        let document =
            #"{"document":{"name":"projects/p/databases/(default)/documents/c/a"},"readTime":"2024-05-01T00:00:01Z"}"#
        let done = #"{"readTime":"2024-05-01T00:00:02Z","done":true}"#
        RunQueryPaths.expectSame(Data("[\(element)]".utf8))
        RunQueryPaths.expectSame(Data("[\(document),\(element),\(done)]".utf8))
        RunQueryPaths.expectSame(Data("[\n\(element)\n,\n\(document)\n]".utf8))
    }

    /// Nesting deeper than the bytes decoder goes is the tree's; deeper than the parser's limit is its error.
    @Test(arguments: [10, 20, 21, 169, 170, 600])
    func deepNesting(_ levels: Int) {
        let value =
            String(repeating: #"{"mapValue":{"fields":{"k":"#, count: levels) + #"{"nullValue":null}"#
            + String(repeating: "}}}", count: levels)
        let element =
            #"{"document":{"name":"projects/p/databases/(default)/documents/c/d","fields":{"f":"# + value
            + #"}},"readTime":"2024-05-01T00:00:02Z"}"#
        // The innermost value object is 4 + 3 * levels deep: the bytes decoder goes to 64, the parser to 512.
        #expect(RunQueryPaths.takesElement(element) == (levels <= 20))
        let outcome = RunQueryPaths.expectSame(Data("[\(element)]".utf8))
        #expect(((try? outcome.get()) != nil) == (levels <= 169))
    }

    /// Every prefix of a body, and every byte of it replaced: the same result or error from both paths.
    @Test func everyTruncationAndEveryByteFlip() {
        let body = Array(("[" + Self.everyKindElement + "]").utf8)
        for end in 0...body.count {
            RunQueryPaths.expectSame(Data(body[..<end]))
        }
        for position in body.indices {
            for replacement: UInt8 in [0x22, 0x5C, 0x7D, 0x2C, 0x30, 0xFF, body[position] ^ 0x20] {
                var mutated = body
                mutated[position] = replacement
                RunQueryPaths.expectSame(Data(mutated))
            }
        }
    }

    /// The cassettes recorded from the emulator: every runQuery and batchGet response body decodes the same
    /// both ways (batchGet bodies are runQuery-shaped streams whose elements the tree path takes).
    @Test func recordedBodies() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Recordings")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        var bodies = 0
        var documents = 0
        for file in files.sorted() {
            let cassette = try JSONValue.parse(Data(contentsOf: folder.appendingPathComponent(file)))
            for interaction in cassette["interactions"]?.arrayValue ?? [] {
                guard let path = interaction["request"]?["path"]?.stringValue,
                    path.hasSuffix(":runQuery") || path.hasSuffix(":batchGet"),
                    let body = interaction["response"]?["body"]?.stringValue
                else { continue }
                bodies += 1
                if case .success(let response) = RunQueryPaths.expectSame(Data(body.utf8)) {
                    documents += response.documents.count
                }
            }
        }
        #expect(bodies >= 20)
        #expect(documents >= 20)
    }
}
