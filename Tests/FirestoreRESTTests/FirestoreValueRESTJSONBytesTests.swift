import Foundation
import Testing

@testable import FirestoreREST

/// `writeRESTJSON(to:)`, `writeRESTFields(_:to:)` and `Timestamp.writeRFC3339(to:nineDigits:)` write the bytes the
/// `JSONValue` path writes (`restJSON.serialized()`, `encodeFields(_:).serialized()`, `rfc3339`), exactly: the
/// PostgreSQL mirror's rows are built with them.
@Suite("FirestoreValue REST JSON bytes", .timeLimit(.minutes(2)))
struct FirestoreValueRESTJSONBytesTests {
    private static let apple = "projects/p/databases/(default)/documents/fruits/apple"

    @Test(arguments: [
        (FirestoreValue.null, #"{"nullValue":null}"#),
        (.boolean(true), #"{"booleanValue":true}"#),
        (.boolean(false), #"{"booleanValue":false}"#),
        (.integer(0), #"{"integerValue":"0"}"#),
        (.integer(9_223_372_036_854_775_807), #"{"integerValue":"9223372036854775807"}"#),
        (.integer(-9_223_372_036_854_775_808), #"{"integerValue":"-9223372036854775808"}"#),
        (.double(1.5), #"{"doubleValue":1.5}"#),
        (.double(0.0), #"{"doubleValue":0.0}"#),
        (.double(-0.0), #"{"doubleValue":-0.0}"#),
        (.double(7_190_000.0), #"{"doubleValue":7190000.0}"#),
        (.double(1e308), #"{"doubleValue":1e+308}"#),
        (.double(.leastNonzeroMagnitude), #"{"doubleValue":5e-324}"#),
        (.double(1.0 / 3), #"{"doubleValue":0.3333333333333333}"#),
        (.double(.nan), #"{"doubleValue":"NaN"}"#),
        (.double(.infinity), #"{"doubleValue":"Infinity"}"#),
        (.double(-.infinity), #"{"doubleValue":"-Infinity"}"#),
        (.timestamp(ts(1_714_532_645, 500_000_000)), #"{"timestampValue":"2024-05-01T03:04:05.500Z"}"#),
        (.timestamp(ts(1_714_532_645, 0)), #"{"timestampValue":"2024-05-01T03:04:05Z"}"#),
        (.timestamp(ts(1_714_532_645, 123_456_000)), #"{"timestampValue":"2024-05-01T03:04:05.123456Z"}"#),
        (.timestamp(ts(1_714_532_645, 123_456_789)), #"{"timestampValue":"2024-05-01T03:04:05.123456789Z"}"#),
        (.timestamp(ts(-62_135_596_800, 0)), #"{"timestampValue":"0001-01-01T00:00:00Z"}"#),
        (.timestamp(ts(253_402_300_799, 999_999_999)), #"{"timestampValue":"9999-12-31T23:59:59.999999999Z"}"#),
        (.timestamp(ts(-1, 500_000_000)), #"{"timestampValue":"1969-12-31T23:59:59.500Z"}"#),
        (.string("a\"b\\c\n\t\u{1}\u{1F600}é"), #"{"stringValue":"a\"b\\c\n\t\u0001😀é"}"#),
        (.string(""), #"{"stringValue":""}"#),
        (.bytes(Data([0x00, 0x01, 0x02, 0xFF])), #"{"bytesValue":"AAEC/w=="}"#),
        (.bytes(Data([0xFB, 0xFF])), #"{"bytesValue":"+/8="}"#),
        (.bytes(Data([0xFB, 0xFF, 0xBF])), #"{"bytesValue":"+/+/"}"#),
        (.bytes(Data()), #"{"bytesValue":""}"#),
        (.reference(apple), #"{"referenceValue":"projects/p/databases/(default)/documents/fruits/apple"}"#),
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
        (
            .map(["__type__": "__vector__", "value": .array([.double(0.5), .double(-1)])]),
            #"{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"value":{"arrayValue":{"values":"#
                + #"[{"doubleValue":0.5},{"doubleValue":-1.0}]}}}}}"#
        ),
    ])
    func writesTheBytesOfTheTree(value: FirestoreValue, expected: String) {
        var output: [UInt8] = []
        value.writeRESTJSON(to: &output)
        #expect(String(decoding: output, as: UTF8.self) == expected)
        #expect(output == Array(value.restJSON.serialized()))
    }

    /// A rich document's fields: names sorted by code point (upper case before lower, `é` and emoji last), values of
    /// every type, nested.
    @Test func aRichDocumentsFieldsAreTheSameBytes() {
        let fields: [String: FirestoreValue] = [
            "name": .string("Ada \"the first\"\n"), "Zeta": .integer(-7), "émoji😀": .boolean(true),
            "a.b": .double(.nan), "`q`": .bytes(Data("hi".utf8)), "at": .timestamp(ts(1_700_000_000, 1)),
            "owner": .reference(Self.apple), "where": .geoPoint(GeoPoint(latitude: -90, longitude: 180)),
            "tags": .array([.string("x"), .null, .array([.integer(2)]), .map(["k": .double(-.infinity)])]),
            "meta": .map(["z": .map([:]), "A": .array([]), "m": .double(0.1)]), "": .string("empty name"),
        ]
        var output: [UInt8] = [0x2A]
        FirestoreValue.writeRESTFields(fields, to: &output)
        #expect(Array(output.dropFirst()) == Array(FirestoreValue.encodeFields(fields).serialized()))
        #expect(
            String(decoding: output.dropFirst(), as: UTF8.self)
                == #"{"":{"stringValue":"empty name"},"Zeta":{"integerValue":"-7"},"`q`":{"bytesValue":"aGk="},"#
                + #""a.b":{"doubleValue":"NaN"},"at":{"timestampValue":"2023-11-14T22:13:20.000000001Z"},"#
                + #""meta":{"mapValue":{"fields":{"A":{"arrayValue":{"values":[]}},"m":{"doubleValue":0.1},"#
                + #""z":{"mapValue":{"fields":{}}}}}},"name":{"stringValue":"Ada \"the first\"\n"},"#
                + #""owner":{"referenceValue":"projects/p/databases/(default)/documents/fruits/apple"},"#
                + #""tags":{"arrayValue":{"values":[{"stringValue":"x"},{"nullValue":null},"#
                + #"{"arrayValue":{"values":[{"integerValue":"2"}]}},{"mapValue":{"fields":{"k":"#
                + #"{"doubleValue":"-Infinity"}}}}]}},"where":{"geoPointValue":{"latitude":-90.0,"longitude":180.0}},"#
                + #""émoji😀":{"booleanValue":true}}"#)
        var empty: [UInt8] = []
        FirestoreValue.writeRESTFields([:], to: &empty)
        #expect(String(decoding: empty, as: UTF8.self) == "{}")
    }

    @Test(arguments: [
        (ts(1_714_532_645, 500_000_000), "2024-05-01T03:04:05.500Z", "2024-05-01T03:04:05.500000000Z"),
        (ts(1_714_532_645, 0), "2024-05-01T03:04:05Z", "2024-05-01T03:04:05.000000000Z"),
        (ts(1_714_532_645, 123_456_000), "2024-05-01T03:04:05.123456Z", "2024-05-01T03:04:05.123456000Z"),
        (ts(1_714_532_645, 7), "2024-05-01T03:04:05.000000007Z", "2024-05-01T03:04:05.000000007Z"),
        (ts(-62_135_596_800, 0), "0001-01-01T00:00:00Z", "0001-01-01T00:00:00.000000000Z"),
        (ts(253_402_300_799, 999_999_999), "9999-12-31T23:59:59.999999999Z", "9999-12-31T23:59:59.999999999Z"),
        (ts(-1, 500_000_000), "1969-12-31T23:59:59.500Z", "1969-12-31T23:59:59.500000000Z"),
        (ts(951_782_400, 10_000_000), "2000-02-29T00:00:00.010Z", "2000-02-29T00:00:00.010000000Z"),
    ])
    func timestampBytes(time: Timestamp, rfc3339: String, nineDigits: String) {
        var output: [UInt8] = []
        time.writeRFC3339(to: &output)
        #expect(String(decoding: output, as: UTF8.self) == rfc3339)
        #expect(time.rfc3339 == rfc3339)
        output = []
        time.writeRFC3339(to: &output, nineDigits: true)
        #expect(String(decoding: output, as: UTF8.self) == nineDigits)
    }
}
