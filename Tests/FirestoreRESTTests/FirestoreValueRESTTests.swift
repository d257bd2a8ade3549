import Foundation
import Testing

@testable import FirestoreREST

/// 2024-05-01T03:04:05.500Z, the instant of `2024-05-01T05:04:05.5+02:00`.
private let may1 = ts(1_714_532_645, 500_000_000)
private let appleName = "projects/p/databases/(default)/documents/fruits/apple"

@Suite("FirestoreValue REST decoding", .timeLimit(.minutes(2)))
struct FirestoreValueRESTDecodingTests {
    @Test(arguments: [
        // null
        (#"{"nullValue":null}"#, FirestoreValue.null),
        (#"{"nullValue":"NULL_VALUE"}"#, .null),
        (#"{"null_value":null}"#, .null),
        // boolean
        (#"{"booleanValue":true}"#, .boolean(true)),
        (#"{"booleanValue":false}"#, .boolean(false)),
        // integer: string and number, full int64
        (#"{"integerValue":"42"}"#, .integer(42)),
        (#"{"integerValue":42}"#, .integer(42)),
        (#"{"integerValue":"-7"}"#, .integer(-7)),
        (#"{"integerValue":"0"}"#, .integer(0)),
        (#"{"integerValue":"9223372036854775807"}"#, .integer(9_223_372_036_854_775_807)),
        (#"{"integerValue":"-9223372036854775808"}"#, .integer(-9_223_372_036_854_775_808)),
        (#"{"integerValue":9223372036854775807}"#, .integer(9_223_372_036_854_775_807)),
        (#"{"integerValue":-9223372036854775808}"#, .integer(-9_223_372_036_854_775_808)),
        (#"{"integerValue":"9007199254740993"}"#, .integer(9_007_199_254_740_993)),
        (#"{"integer_value":"7"}"#, .integer(7)),
        // double: numbers, special strings, numeric strings
        (#"{"doubleValue":1.5}"#, .double(1.5)),
        (#"{"doubleValue":0.0}"#, .double(0.0)),
        (#"{"doubleValue":3}"#, .double(3.0)),
        (#"{"doubleValue":7190000.0}"#, .double(7_190_000.0)),
        (#"{"doubleValue":1e308}"#, .double(1e308)),
        (#"{"doubleValue":"NaN"}"#, .double(.nan)),
        (#"{"doubleValue":"Infinity"}"#, .double(.infinity)),
        (#"{"doubleValue":"-Infinity"}"#, .double(-.infinity)),
        (#"{"doubleValue":"4.2"}"#, .double(4.2)),
        (#"{"doubleValue":"-1e3"}"#, .double(-1000.0)),
        // timestamp: 0/3/6/9 fraction digits and offsets
        (#"{"timestampValue":"2024-05-01T03:04:05Z"}"#, .timestamp(ts(1_714_532_645, 0))),
        (#"{"timestampValue":"2024-05-01T03:04:05.123Z"}"#, .timestamp(ts(1_714_532_645, 123_000_000))),
        (#"{"timestampValue":"2024-05-01T03:04:05.123456Z"}"#, .timestamp(ts(1_714_532_645, 123_456_000))),
        (#"{"timestampValue":"2024-05-01T03:04:05.123456789Z"}"#, .timestamp(ts(1_714_532_645, 123_456_789))),
        (#"{"timestampValue":"2024-05-01T05:04:05.5+02:00"}"#, .timestamp(may1)),
        (#"{"timestampValue":"0001-01-01T00:00:00Z"}"#, .timestamp(ts(-62_135_596_800, 0))),
        (#"{"timestampValue":"9999-12-31T23:59:59.999999999Z"}"#, .timestamp(ts(253_402_300_799, 999_999_999))),
        // string
        (#"{"stringValue":"héllo 😀"}"#, .string("héllo 😀")),
        (#"{"stringValue":""}"#, .string("")),
        // bytes: standard, URL-safe, unpadded
        (#"{"bytesValue":"AAEC/w=="}"#, .bytes(Data([0x00, 0x01, 0x02, 0xFF]))),
        (#"{"bytesValue":"AAEC_w=="}"#, .bytes(Data([0x00, 0x01, 0x02, 0xFF]))),
        (#"{"bytesValue":"AAEC_w"}"#, .bytes(Data([0x00, 0x01, 0x02, 0xFF]))),
        (#"{"bytesValue":"AAEC/w"}"#, .bytes(Data([0x00, 0x01, 0x02, 0xFF]))),
        (#"{"bytesValue":"-_8="}"#, .bytes(Data([0xFB, 0xFF]))),
        (#"{"bytesValue":"+/8="}"#, .bytes(Data([0xFB, 0xFF]))),
        (#"{"bytesValue":""}"#, .bytes(Data())),
        // reference
        (#"{"referenceValue":"projects/p/databases/(default)/documents/fruits/apple"}"#, .reference(appleName)),
        // geo point: absent members are 0
        (
            #"{"geoPointValue":{"latitude":37.5,"longitude":-122.25}}"#,
            .geoPoint(GeoPoint(latitude: 37.5, longitude: -122.25))
        ),
        (#"{"geoPointValue":{}}"#, .geoPoint(GeoPoint(latitude: 0, longitude: 0))),
        (#"{"geoPointValue":{"longitude":5.0}}"#, .geoPoint(GeoPoint(latitude: 0, longitude: 5))),
        (#"{"geoPointValue":{"latitude":-1}}"#, .geoPoint(GeoPoint(latitude: -1, longitude: 0))),
        (#"{"geo_point_value":{"latitude":1,"longitude":2}}"#, .geoPoint(GeoPoint(latitude: 1, longitude: 2))),
        // array and map, empty forms
        (#"{"arrayValue":{}}"#, .array([])),
        (#"{"arrayValue":{"values":[]}}"#, .array([])),
        (
            #"{"arrayValue":{"values":[{"integerValue":"1"},{"stringValue":"a"},{"nullValue":null}]}}"#,
            .array([.integer(1), .string("a"), .null])
        ),
        (#"{"mapValue":{}}"#, .map([:])),
        (#"{"mapValue":{"fields":{}}}"#, .map([:])),
        (
            #"{"mapValue":{"fields":{"a":{"booleanValue":true},"b":{"mapValue":{"fields":{"c":{"integerValue":"1"}}}}}}}"#,
            .map(["a": .boolean(true), "b": .map(["c": .integer(1)])])
        ),
        // members that are not value members are ignored
        (#"{"integerValue":"1","foo":2}"#, .integer(1)),
    ])
    func decodes(text: String, expected: FirestoreValue) throws {
        #expect(try decodeValue(text) == expected)
    }

    @Test func nanDecodesToNaN() throws {
        let value = try decodeValue(#"{"doubleValue":"NaN"}"#)
        guard case .double(let number) = value else {
            Issue.record("expected a double, got \(value)")
            return
        }
        #expect(number.isNaN)
        #expect(value.isNaN)
    }

    @Test(arguments: [
        // integer out of range or malformed
        #"{"integerValue":"9223372036854775808"}"#,
        #"{"integerValue":"-9223372036854775809"}"#,
        #"{"integerValue":9223372036854775808}"#,
        #"{"integerValue":"1.5"}"#,
        #"{"integerValue":1.5}"#,
        #"{"integerValue":"abc"}"#,
        #"{"integerValue":""}"#,
        #"{"integerValue":true}"#,
        #"{"integerValue":null}"#,
        // double
        #"{"doubleValue":"nan"}"#,
        #"{"doubleValue":"inf"}"#,
        #"{"doubleValue":"0x1p3"}"#,
        #"{"doubleValue":"abc"}"#,
        #"{"doubleValue":""}"#,
        #"{"doubleValue":true}"#,
        // boolean, string, reference
        #"{"booleanValue":1}"#,
        #"{"booleanValue":"true"}"#,
        #"{"stringValue":5}"#,
        #"{"referenceValue":{}}"#,
        // null
        #"{"nullValue":"x"}"#,
        #"{"nullValue":false}"#,
        // timestamp
        #"{"timestampValue":"2023-02-30T00:00:00Z"}"#,
        #"{"timestampValue":"2024-05-01T03:04:05.1234567891Z"}"#,
        #"{"timestampValue":"2024-05-01T03:04:05"}"#,
        #"{"timestampValue":12}"#,
        // bytes
        #"{"bytesValue":"!!!!"}"#,
        #"{"bytesValue":"A"}"#,
        #"{"bytesValue":7}"#,
        // geo point
        #"{"geoPointValue":{"latitude":"north"}}"#,
        #"{"geoPointValue":{"latitude":true}}"#,
        #"{"geoPointValue":[]}"#,
        // array and map shapes
        #"{"arrayValue":[]}"#,
        #"{"arrayValue":{"values":{}}}"#,
        #"{"mapValue":[]}"#,
        #"{"mapValue":{"fields":[]}}"#,
        // not an object at all
        #""x""#,
        "null",
        "[]",
    ])
    func rejects(text: String) throws {
        let input = try json(text)
        let error = #expect(throws: FirestoreError.self) { try FirestoreValue(restJSON: input) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func nineteenDigitIntegerOverflowNamesTheMember() throws {
        let input = try json(#"{"integerValue":"9223372036854775808"}"#)
        let error = #expect(throws: FirestoreError.self) { try FirestoreValue(restJSON: input) }
        #expect(error?.message.contains("integerValue") == true)
        #expect(error?.message.contains("9223372036854775808") == true)
    }

    @Test func twoMembersIsAnErrorNamingBoth() throws {
        let input = try json(#"{"stringValue":"a","integerValue":"1"}"#)
        let error = #expect(throws: FirestoreError.self) { try FirestoreValue(restJSON: input) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("stringValue") == true)
        #expect(error?.message.contains("integerValue") == true)
    }

    @Test func emptyObjectIsUnknownValueType() throws {
        let input = try json("{}")
        let error = #expect(throws: FirestoreError.self) { try FirestoreValue(restJSON: input) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("unknown value type") == true)
    }

    @Test func unknownMemberIsUnknownValueTypeNamingIt() throws {
        let input = try json(#"{"vectorValue":{}}"#)
        let error = #expect(throws: FirestoreError.self) { try FirestoreValue(restJSON: input) }
        #expect(error?.message.contains("unknown value type") == true)
        #expect(error?.message.contains("vectorValue") == true)
    }

    @Test func errorMessageStartsWithTheGivenPath() throws {
        let input = try json(#"{"booleanValue":"yes"}"#)
        let error = #expect(throws: FirestoreError.self) { try FirestoreValue(restJSON: input, at: "doc field x") }
        #expect(error?.message.hasPrefix("doc field x: ") == true)
    }

    // MARK: Field paths in error messages

    @Test(arguments: [
        // a bad value nested at tags[2]
        (
            #"{"tags":{"arrayValue":{"values":[{"stringValue":"a"},{"stringValue":"b"},{"integerValue":"x"}]}}}"#,
            "field tags[2]: "
        ),
        // a bad value nested at profile.age
        (#"{"profile":{"mapValue":{"fields":{"age":{"integerValue":"old"}}}}}"#, "field profile.age: "),
        // deeper: profile.tags[1].x
        (
            #"{"profile":{"mapValue":{"fields":{"tags":{"arrayValue":{"values":[{"nullValue":null},{"mapValue":{"fields":{"x":{}}}}]}}}}}}"#,
            "field profile.tags[1].x: "
        ),
        // names that need quoting are quoted as field paths
        (#"{"a.b":{"booleanValue":0}}"#, "field `a.b`: "),
        (#"{"m":{"mapValue":{"fields":{"spam-eggs":{"doubleValue":"x"}}}}}"#, "field m.`spam-eggs`: "),
        (#"{"t":{"timestampValue":"2023-02-30T00:00:00Z"}}"#, "field t: "),
    ])
    func errorNamesFieldPath(fieldsJSON: String, expectedPrefix: String) throws {
        guard case .object(let fields) = try json(fieldsJSON) else {
            Issue.record("test input is not an object")
            return
        }
        let error = #expect(throws: FirestoreError.self) { try FirestoreValue.decodeFields(fields) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.hasPrefix(expectedPrefix) == true, "message: \(error?.message ?? "nil")")
    }

    @Test func documentErrorNamesDocumentAndFieldPath() throws {
        let input = try json(
            #"{"name":"projects/p/databases/(default)/documents/c/d","fields":{"tags":{"arrayValue":{"values":[{"stringValue":"a"},{"stringValue":"b"},{"bytesValue":"*"}]}}}}"#
        )
        let error = #expect(throws: FirestoreError.self) { try Document(restJSON: input) }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message.hasPrefix("document projects/p/databases/(default)/documents/c/d: field tags[2]: ") == true,
            "message: \(error?.message ?? "nil")")
    }

    // MARK: Field cases

    /// Field case C-18: NaN / ±Infinity are JSON strings in REST.
    @Test func fieldCaseC18SpecialDoubles() throws {
        let input = #"{"x":{"doubleValue":"NaN"},"y":{"doubleValue":"-Infinity"},"z":{"doubleValue":1e308}}"#
        guard case .object(let fields) = try json(input) else {
            Issue.record("test input is not an object")
            return
        }
        let decoded = try FirestoreValue.decodeFields(fields)
        #expect(decoded.count == 3)
        #expect(decoded["x"]?.isNaN == true)
        #expect(decoded["y"] == .double(-.infinity))
        #expect(decoded["z"] == .double(1e308))

        let encoded = FirestoreValue.encodeFields(decoded)
        #expect(encoded == (try json(input)))
        #expect(
            encoded.serializedString()
                == #"{"x":{"doubleValue":"NaN"},"y":{"doubleValue":"-Infinity"},"z":{"doubleValue":1e+308}}"#)
    }

    /// Field case C-19: 64-bit integers keep full precision.
    @Test func fieldCaseC19FullInt64() throws {
        let input =
            #"{"n":{"integerValue":"9223372036854775807"},"m":{"integerValue":"5248794116772919364"},"k":{"integerValue":"4294967296"}}"#
        guard case .object(let fields) = try json(input) else {
            Issue.record("test input is not an object")
            return
        }
        let decoded = try FirestoreValue.decodeFields(fields)
        #expect(
            decoded == [
                "n": .integer(9_223_372_036_854_775_807),
                "m": .integer(5_248_794_116_772_919_364),
                "k": .integer(4_294_967_296),
            ])
        #expect(FirestoreValue.integer(.max).restJSON == (try json(#"{"integerValue":"9223372036854775807"}"#)))
        #expect(FirestoreValue.integer(.max).restJSON.serializedString() == #"{"integerValue":"9223372036854775807"}"#)
        #expect(FirestoreValue.encodeFields(decoded) == (try json(input)))
    }

    /// Field case C-21: empty containers have their keys left out.
    @Test func fieldCaseC21EmptyContainers() throws {
        guard case .object(let fields) = try json(#"{"tags":{"arrayValue":{}},"meta":{"mapValue":{}}}"#) else {
            Issue.record("test input is not an object")
            return
        }
        #expect(try FirestoreValue.decodeFields(fields) == ["tags": .array([]), "meta": .map([:])])
    }
}

@Suite("FirestoreValue REST encoding", .timeLimit(.minutes(2)))
struct FirestoreValueRESTEncodingTests {
    @Test(arguments: [
        (FirestoreValue.null, #"{"nullValue":null}"#),
        (.boolean(true), #"{"booleanValue":true}"#),
        (.boolean(false), #"{"booleanValue":false}"#),
        (.integer(0), #"{"integerValue":"0"}"#),
        (.integer(42), #"{"integerValue":"42"}"#),
        (.integer(9_223_372_036_854_775_807), #"{"integerValue":"9223372036854775807"}"#),
        (.integer(-9_223_372_036_854_775_808), #"{"integerValue":"-9223372036854775808"}"#),
        (.double(1.5), #"{"doubleValue":1.5}"#),
        (.double(0.0), #"{"doubleValue":0.0}"#),
        (.double(7_190_000.0), #"{"doubleValue":7190000.0}"#),
        (.double(1e308), #"{"doubleValue":1e308}"#),
        (.double(.nan), #"{"doubleValue":"NaN"}"#),
        (.double(.infinity), #"{"doubleValue":"Infinity"}"#),
        (.double(-.infinity), #"{"doubleValue":"-Infinity"}"#),
        (.timestamp(may1), #"{"timestampValue":"2024-05-01T03:04:05.500Z"}"#),
        (.timestamp(ts(1_714_532_645, 0)), #"{"timestampValue":"2024-05-01T03:04:05Z"}"#),
        (.timestamp(ts(1_714_532_645, 123_456_000)), #"{"timestampValue":"2024-05-01T03:04:05.123456Z"}"#),
        (.timestamp(ts(1_714_532_645, 123_456_789)), #"{"timestampValue":"2024-05-01T03:04:05.123456789Z"}"#),
        (.string("a\"b"), #"{"stringValue":"a\"b"}"#),
        (.string(""), #"{"stringValue":""}"#),
        (.bytes(Data([0x00, 0x01, 0x02, 0xFF])), #"{"bytesValue":"AAEC/w=="}"#),
        (.bytes(Data([0xFB, 0xFF])), #"{"bytesValue":"+/8="}"#),
        (.bytes(Data()), #"{"bytesValue":""}"#),
        (.reference(appleName), #"{"referenceValue":"projects/p/databases/(default)/documents/fruits/apple"}"#),
        (
            .geoPoint(GeoPoint(latitude: 37.5, longitude: -122.25)),
            #"{"geoPointValue":{"latitude":37.5,"longitude":-122.25}}"#
        ),
        (.geoPoint(GeoPoint(latitude: 0, longitude: 5)), #"{"geoPointValue":{"latitude":0.0,"longitude":5.0}}"#),
        (.array([]), #"{"arrayValue":{"values":[]}}"#),
        (
            .array([.integer(1), .string("a")]),
            #"{"arrayValue":{"values":[{"integerValue":"1"},{"stringValue":"a"}]}}"#
        ),
        (.map([:]), #"{"mapValue":{"fields":{}}}"#),
        (
            .map(["b": .boolean(false), "a": .map(["c": .null])]),
            #"{"mapValue":{"fields":{"a":{"mapValue":{"fields":{"c":{"nullValue":null}}}},"b":{"booleanValue":false}}}}"#
        ),
    ])
    func encodes(value: FirestoreValue, expected: String) throws {
        #expect(value.restJSON == (try json(expected)))
    }

    @Test func encodedTextIsExact() {
        let value: FirestoreValue = [
            "n": .integer(9_223_372_036_854_775_807), "d": .double(7_190_000), "x": .double(.nan),
            "t": .timestamp(may1), "b": .bytes(Data([0xFF])),
        ]
        #expect(
            value.restJSON.serializedString()
                == #"{"mapValue":{"fields":{"b":{"bytesValue":"/w=="},"d":{"doubleValue":7190000.0},"n":{"integerValue":"9223372036854775807"},"t":{"timestampValue":"2024-05-01T03:04:05.500Z"},"x":{"doubleValue":"NaN"}}}}"#
        )
    }

    /// Every type survives restJSON → init(restJSON:).
    @Test(arguments: [
        FirestoreValue.null,
        .boolean(true),
        .boolean(false),
        .integer(9_223_372_036_854_775_807),
        .integer(-9_223_372_036_854_775_808),
        .double(-0.5),
        .double(.nan),
        .double(.infinity),
        .double(-.infinity),
        .double(1e308),
        .double(.leastNonzeroMagnitude),
        .timestamp(may1),
        .timestamp(ts(-62_135_596_800, 0)),
        .timestamp(ts(253_402_300_799, 999_999_999)),
        .timestamp(ts(-1, 500_000_000)),
        .string("ü 😀 \"\n"),
        .bytes(Data([0x00, 0xFF, 0x10])),
        .bytes(Data()),
        .reference(appleName),
        .geoPoint(GeoPoint(latitude: -90, longitude: 180)),
        .array([]),
        .array([.null, .integer(1), .map(["k": .array([])])]),
        .map([:]),
        .map(["a.b": .string("x"), "`": .map(["x y": .integer(1)]), "n": .double(.nan)]),
    ])
    func roundTrips(value: FirestoreValue) throws {
        #expect(try FirestoreValue(restJSON: value.restJSON) == value)
        // and through the JSON text as it goes over the wire
        #expect(try FirestoreValue(restJSON: JSONValue.parse(value.restJSON.serialized())) == value)
    }

    @Test func typeNames() {
        #expect(FirestoreValue.null.typeName == "nullValue")
        #expect(FirestoreValue.geoPoint(GeoPoint(latitude: 0, longitude: 0)).typeName == "geoPointValue")
        #expect(FirestoreValue.map([:]).typeName == "mapValue")
    }

    @Test func equalityFollowsTheWire() {
        #expect(FirestoreValue.integer(1) != FirestoreValue.double(1))
        #expect(FirestoreValue.double(.nan) == FirestoreValue.double(.nan))
        #expect(FirestoreValue.string("projects/p") != FirestoreValue.reference("projects/p"))
    }
}

@Suite("FirestoreValue plain JSON", .timeLimit(.minutes(2)))
struct FirestoreValuePlainJSONTests {
    @Test(arguments: [
        (FirestoreValue.null, "null"),
        (.boolean(true), "true"),
        (.integer(9_223_372_036_854_775_807), "9223372036854775807"),
        (.integer(-3), "-3"),
        (.double(1.5), "1.5"),
        (.double(7_190_000), "7190000.0"),
        (.double(.nan), #""NaN""#),
        (.double(.infinity), #""Infinity""#),
        (.double(-.infinity), #""-Infinity""#),
        (.timestamp(may1), #""2024-05-01T03:04:05.500Z""#),
        (.string("x"), #""x""#),
        (.bytes(Data([0x00, 0x01, 0x02, 0xFF])), #""AAEC/w==""#),
        (.reference(appleName), #""fruits/apple""#),
        (
            .reference("projects/p/databases/(default)/documents/fruits/apple/reviews/r1"),
            #""fruits/apple/reviews/r1""#
        ),
        (.reference("not-a-resource-name"), #""not-a-resource-name""#),
        (.reference("projects/p/databases/(default)/documents/documents/d"), #""documents/d""#),
        (.geoPoint(GeoPoint(latitude: 37.5, longitude: -122.25)), #"{"latitude":37.5,"longitude":-122.25}"#),
        (.array([]), "[]"),
        (.array([.integer(1), .string("a"), .null]), #"[1,"a",null]"#),
        (.map([:]), "{}"),
        (.map(["b": .integer(2), "a": .map(["c": .boolean(false)])]), #"{"a":{"c":false},"b":2}"#),
    ])
    func plainJSON(value: FirestoreValue, expected: String) throws {
        #expect(value.plainJSON == (try json(expected)))
        #expect(value.description == expected)
    }

    /// A project or a named database may be called `documents`; the document path starts after
    /// `projects/{p}/databases/{d}/documents/`, not at the first `/documents/`.
    // .bug("FirestoreValue.plainJSON cuts a reference at the first \"/documents/\", which can be inside the project or database ID")
    @Test(arguments: [
        ("projects/p/databases/documents/documents/fruits/apple", "fruits/apple"),
        ("projects/documents/databases/(default)/documents/fruits/apple", "fruits/apple"),
    ])
    func plainJSONReferenceWhenAnIDIsDocuments(name: String, expected: String) {
        #expect(FirestoreValue.reference(name).plainJSON == .string(expected))
    }
}
