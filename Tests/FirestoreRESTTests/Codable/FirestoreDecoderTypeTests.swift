import Foundation
import Testing

@testable import FirestoreREST

/// What each Swift type reads and writes (issue 4 "Types"), the lenient number rules, and the error messages
/// (`fruits/u2: name: expected String, found integerValue`).
@Suite(.timeLimit(.minutes(2))) struct FirestoreDecoderTypeTests {
    // MARK: Integers

    struct Widths: Codable, Equatable {
        var i8: Int8
        var i16: Int16
        var i32: Int32
        var i64: Int64
        var i: Int
        var u8: UInt8
        var u16: UInt16
        var u32: UInt32
        var u64: UInt64
        var u: UInt
    }

    @Test func everyIntegerWidthRoundTripsAtItsLimits() throws {
        try expectRoundTrip(
            Widths(
                i8: .min, i16: .min, i32: .min, i64: .min, i: .min, u8: .max, u16: .max, u32: .max,
                u64: 9_223_372_036_854_775_807, u: 9_223_372_036_854_775_807),
            [
                "i8": .integer(-128), "i16": .integer(-32768), "i32": .integer(-2_147_483_648),
                "i64": .integer(-9_223_372_036_854_775_808), "i": .integer(-9_223_372_036_854_775_808),
                "u8": .integer(255), "u16": .integer(65535), "u32": .integer(4_294_967_295),
                "u64": .integer(9_223_372_036_854_775_807), "u": .integer(9_223_372_036_854_775_807),
            ])
    }

    @Test(arguments: [
        ("i8", FirestoreValue.integer(128), "i8: 128 is out of range for Int8"),
        ("i16", .integer(-32769), "i16: -32769 is out of range for Int16"),
        ("i32", .integer(4_294_967_296), "i32: 4294967296 is out of range for Int32"),
        ("u8", .integer(-1), "u8: -1 is out of range for UInt8"),
        ("u16", .integer(65536), "u16: 65536 is out of range for UInt16"),
        ("u32", .integer(-5), "u32: -5 is out of range for UInt32"),
        ("u64", .integer(-1), "u64: -1 is out of range for UInt64"),
        ("u", .integer(-9_223_372_036_854_775_808), "u: -9223372036854775808 is out of range for UInt"),
    ])
    func integerOverflowIsAnErrorNeverAWrap(field: String, value: FirestoreValue, message: String) throws {
        var fields: [String: FirestoreValue] = [
            "i8": 0, "i16": 0, "i32": 0, "i64": 0, "i": 0, "u8": 0, "u16": 0, "u32": 0, "u64": 0, "u": 0,
        ]
        fields[field] = value
        let error = thrownError { try FirestoreDecoder().decode(Widths.self, from: fields) }
        #expect(error.map(codingMessage) == message)
        guard case DecodingError.dataCorrupted? = error else {
            Issue.record("expected dataCorrupted, got \(String(describing: error))")
            return
        }
    }

    @Test func uint64AboveInt64MaxIsAnEncodingError() {
        struct Model: Codable { var big: UInt64 }
        let error = thrownError { try FirestoreEncoder().encode(Model(big: 9_223_372_036_854_775_808)) }
        #expect(
            error.map(codingMessage)
                == "big: 9223372036854775808 is out of range for an integerValue (a signed 64-bit integer, at most 9223372036854775807)"
        )
        #expect(error.map(codingPath) == ["big"])
        struct Many: Codable { var list: [UInt] }
        let inArray = thrownError { try FirestoreEncoder().encode(Many(list: [1, UInt.max])) }
        #expect(
            inArray.map(codingMessage)
                == "list[1]: 18446744073709551615 is out of range for an integerValue (a signed 64-bit integer, at most 9223372036854775807)"
        )
    }

    @Test func wholeDoubleDecodesIntoIntegersWhenExactAndInRange() throws {
        struct Model: Codable, Equatable {
            var a: Int
            var b: Int8
            var c: UInt64
        }
        #expect(
            try FirestoreDecoder().decode(Model.self, from: ["a": .double(42), "b": .double(-128), "c": .double(0)])
                == Model(a: 42, b: -128, c: 0))
        let fraction = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["a": .double(42.5), "b": .double(1), "c": .double(1)])
        }
        #expect(fraction.map(codingMessage) == "a: expected Int, found doubleValue 42.5 (not a whole number)")
        let range = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["a": .double(1), "b": .double(200), "c": .double(1)])
        }
        #expect(range.map(codingMessage) == "b: expected Int8, found doubleValue 200.0 (out of range)")
        let huge = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["a": .double(1e20), "b": .double(1), "c": .double(1)])
        }
        #expect(huge.map(codingMessage) == "a: expected Int, found doubleValue 1e+20 (out of range)")
        let nan = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["a": .double(.nan), "b": .double(1), "c": .double(1)])
        }
        #expect(nan.map(codingMessage) == "a: expected Int, found doubleValue nan (not a whole number)")
        guard case DecodingError.typeMismatch? = nan else {
            Issue.record("expected typeMismatch, got \(String(describing: nan))")
            return
        }
    }

    // MARK: Floating point

    @Test func integerDecodesIntoDoubleAndFloat() throws {
        struct Model: Codable, Equatable {
            var d: Double
            var f: Float
        }
        #expect(
            try FirestoreDecoder().decode(Model.self, from: ["d": .integer(3), "f": .integer(-2)]) == Model(d: 3, f: -2)
        )
    }

    @Test func specialDoublesRoundTrip() throws {
        struct Model: Codable {
            var nan: Double
            var inf: Double
            var negInf: Float
        }
        let encoded = try FirestoreEncoder().encode(Model(nan: .nan, inf: .infinity, negInf: -.infinity))
        #expect(encoded == ["nan": .double(.nan), "inf": .double(.infinity), "negInf": .double(-.infinity)])
        let decoded = try FirestoreDecoder().decode(Model.self, from: encoded)
        #expect(decoded.nan.isNaN)
        #expect(decoded.inf == .infinity)
        #expect(decoded.negInf == -.infinity)
    }

    @Test func doubleTooLargeForFloatIsAnError() {
        struct Model: Codable { var f: Float }
        let error = thrownError { try FirestoreDecoder().decode(Model.self, from: ["f": .double(1e300)]) }
        #expect(error.map(codingMessage) == "f: 1e+300 does not fit in Float")
    }

    // MARK: Other scalars

    @Test func boolStringAndMismatches() throws {
        struct Model: Codable, Equatable {
            var flag: Bool
            var text: String
        }
        try expectRoundTrip(Model(flag: true, text: "ü \"q\""), ["flag": .boolean(true), "text": .string("ü \"q\"")])
        let number = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["flag": .integer(1), "text": "t"])
        }
        #expect(number.map(codingMessage) == "flag: expected Bool, found integerValue")
        let null = thrownError { try FirestoreDecoder().decode(Model.self, from: ["flag": true, "text": .null]) }
        #expect(null.map(codingMessage) == "text: expected String, found nullValue")
        guard case DecodingError.valueNotFound? = null else {
            Issue.record("expected valueNotFound for nullValue, got \(String(describing: null))")
            return
        }
    }

    @Test func urlIsAString() throws {
        struct Model: Codable, Equatable { var link: URL }
        try expectRoundTrip(
            Model(link: URL(string: "https://example.com/a?b=c")!), ["link": .string("https://example.com/a?b=c")])
        let error = thrownError { try FirestoreDecoder().decode(Model.self, from: ["link": .integer(1)]) }
        #expect(error.map(codingMessage) == "link: expected String, found integerValue")
    }

    @Test func enumsWithRawValues() throws {
        enum Color: String, Codable { case red, green }
        enum Level: Int, Codable {
            case low = 1
            case high = 9
        }
        struct Model: Codable, Equatable {
            var color: Color
            var level: Level
            var history: [Color]
        }
        try expectRoundTrip(
            Model(color: .green, level: .high, history: [.red, .green]),
            ["color": .string("green"), "level": .integer(9), "history": .array([.string("red"), .string("green")])])
        let error = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["color": "blue", "level": 1, "history": []])
        }
        #expect(codingPath(error ?? CancellationError()) == ["color"])
        #expect(try FirestoreEncoder().encodeValue(Color.red) == .string("red"))
    }

    @Test func timestampKeepsNanosecondsAndAcceptsAMap() throws {
        struct Model: Codable, Equatable { var time: Timestamp }
        try expectRoundTrip(Model(time: ts(-1, 999_999_999)), ["time": .timestamp(ts(-1, 999_999_999))])
        #expect(
            try FirestoreDecoder().decode(Model.self, from: ["time": ["seconds": 37, "nanoseconds": 122]])
                == Model(time: ts(37, 122)))
        let bad = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["time": ["seconds": 37, "nanoseconds": -1]])
        }
        #expect(bad.map(codingMessage) == "time: Timestamp nanos -1 is outside 0...999999999")
        let text = thrownError { try FirestoreDecoder().decode(Model.self, from: ["time": "2024-01-01T00:00:00Z"]) }
        #expect(text.map(codingMessage) == "time: expected Timestamp, found stringValue")
    }

    @Test func geoPointAcceptsAMap() throws {
        struct Model: Codable, Equatable { var at: GeoPoint }
        #expect(
            try FirestoreDecoder().decode(Model.self, from: ["at": ["latitude": 1.5, "longitude": 2]])
                == Model(at: GeoPoint(latitude: 1.5, longitude: 2)))
    }

    @Test func firestoreValuePropertyHoldsAnything() throws {
        struct Model: Codable, Equatable { var any: FirestoreValue }
        try expectRoundTrip(
            Model(any: ["k": [1, "two"]]), ["any": .map(["k": .array([.integer(1), .string("two")])])])
        try expectRoundTrip(Model(any: .null), ["any": .null])
    }

    @Test func writeValuePropertyIsASentinelForWrites() throws {
        struct Model: Encodable {
            var name = "n"
            var views = FieldValue.increment(Int64(1))
        }
        #expect(try FirestoreEncoder().encodeForWrite(Model()) == ["name": "n", "views": .increment(.integer(1))])
    }

    // MARK: References

    @Test func referencesNeedAClientOfTheSameDatabase() throws {
        struct Model: Codable { var owner: DocumentReference }
        let db = try offlineFirestore()
        let none = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["owner": .reference(resourceName("users/a"))])
        }
        #expect(
            none.map(codingMessage)
                == "owner: cannot make a DocumentReference for projects/p/databases/(default)/documents/users/a without a Firestore client; decode a DocumentSnapshot, or pass `in:` a reference or `firestore:` to FirestoreDecoder"
        )
        let foreign = thrownError {
            try FirestoreDecoder().decode(
                Model.self, from: ["owner": .reference("projects/q/databases/(default)/documents/users/a")],
                in: db.document("c/d"))
        }
        #expect(
            foreign.map(codingMessage)
                == "c/d: owner: resource name \"projects/q/databases/(default)/documents/users/a\" is not below projects/p/databases/(default)/documents"
        )
        let collection = thrownError {
            try FirestoreDecoder().decode(
                Model.self, from: ["owner": .reference(resourceName("users"))], in: db.document("c/d"))
        }
        #expect(
            collection.map(codingMessage)
                == "c/d: owner: projects/p/databases/(default)/documents/users does not name a document")
        let decoded = try FirestoreDecoder().decode(
            Model.self, from: ["owner": .reference(resourceName("users/a"))], in: db.document("c/d"))
        #expect(decoded.owner == db.document("users/a"))
    }

    @Test func referenceWithAnInvalidPathIsNotEncoded() throws {
        struct Model: Codable { var owner: DocumentReference }
        let error = thrownError { try FirestoreEncoder().encode(Model(owner: try offlineFirestore().document("a//b"))) }
        #expect(codingPath(error ?? CancellationError()) == ["owner"])
    }

    // MARK: Containers, optionals and messages

    @Test func dictionariesArraysAndOptionalsNest() throws {
        struct Model: Codable, Equatable {
            var counts: [String: Int]
            var matrix: [[String: Double?]]
            var maybe: [Int?]
            var byNumber: [Int: String]
        }
        try expectRoundTrip(
            Model(counts: ["a": 1], matrix: [["x": 1.5, "y": nil]], maybe: [1, nil], byNumber: [7: "seven"]),
            [
                "counts": .map(["a": .integer(1)]),
                "matrix": .array([.map(["x": .double(1.5), "y": .null])]),
                "maybe": .array([.integer(1), .null]),
                "byNumber": .map(["7": .string("seven")]),
            ])
    }

    @Test func errorsNameTheDocumentAndTheCodingPath() throws {
        struct Inner: Codable { var age: Int }
        struct Model: Codable {
            var name: String
            var groups: [Inner]
        }
        let db = try offlineFirestore()
        let snapshot = DocumentSnapshot(
            reference: db.document("fruits/u2"),
            document: Document(
                name: resourceName("fruits/u2"), fields: ["name": "Ann", "groups": [["age": 1], ["age": "x"]]]))
        // A snapshot's data(as:) throws a DocumentDecodingFailure: printed short, the DecodingError inside.
        let error = thrownError { try snapshot.data(as: Model.self) }
        let failure = try #require(error as? DocumentDecodingFailure)
        #expect("\(failure)" == "fruits/u2: groups[1].age: expected Int, found stringValue")
        #expect(failure.documentPath == "fruits/u2")
        #expect(codingMessage(failure.error) == "fruits/u2: groups[1].age: expected Int, found stringValue")
        #expect(codingPath(failure.error) == ["groups", "Index 1", "age"])
        let missing = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["groups": [["age": 1]]], in: db.document("fruits/u3"))
        }
        #expect(missing.map(codingMessage) == "fruits/u3: name: required field is missing")
        #expect(missing.map(codingPath) == [])
        let shape = thrownError {
            try FirestoreDecoder().decode(Model.self, from: .array([]), in: db.document("fruits/u4"))
        }
        #expect(shape.map(codingMessage) == "fruits/u4: expected a map, found arrayValue")
        let dotted = thrownError {
            try FirestoreDecoder().decode([String: Inner].self, from: ["a.b": ["age": true]])
        }
        #expect(dotted.map(codingMessage) == "`a.b`.age: expected Int, found booleanValue")
    }

    @Test func unkeyedContainerPastTheEndIsAnError() {
        struct Pair: Decodable {
            init(from decoder: any Decoder) throws {
                var container = try decoder.unkeyedContainer()
                _ = try container.decode(Int.self)
                _ = try container.decode(Int.self)
            }
        }
        let error = thrownError { try FirestoreDecoder().decode(Pair.self, from: [1]) }
        #expect(error.map(codingMessage) == "[1]: expected Int, but the array has only 1 elements")
    }

    @Test func decodesFromARESTDocumentWithoutAClient() throws {
        struct Model: Codable, Equatable {
            @DocumentID var id: String?
            var name: String
        }
        let document = try Document(
            restJSON: json(
                #"{"name":"projects/p/databases/(default)/documents/fruits/apple","fields":{"name":{"stringValue":"Apple"}}}"#
            ))
        #expect(try FirestoreDecoder().decode(Model.self, from: document) == Model(id: "apple", name: "Apple"))
        struct Referenced: Codable { @DocumentID var ref: DocumentReference? }
        let error = thrownError { try FirestoreDecoder().decode(Referenced.self, from: document) }
        #expect(
            error.map(codingMessage)
                == "fruits/apple: ref: @DocumentID of type DocumentReference needs the document's reference, which needs a Firestore client"
        )
        let db = try offlineFirestore()
        #expect(
            try FirestoreDecoder().decode(Referenced.self, from: document, firestore: db).ref
                == db.document("fruits/apple"))
    }

    @Test func nilEncodingStrategyWritesNull() throws {
        struct Model: Codable, Equatable {
            var value: String
            var date: Date?
            var count: Int?
        }
        var encoder = FirestoreEncoder()
        #expect(try encoder.encode(Model(value: "b", date: nil, count: nil)) == ["value": "b"])
        encoder.nilEncodingStrategy = .null
        #expect(
            try encoder.encode(Model(value: "b", date: nil, count: nil)) == [
                "value": "b", "date": .null, "count": .null,
            ])
        #expect(
            try encoder.encode(Model(value: "b", date: nil, count: 3)) == ["value": "b", "date": .null, "count": 3])
    }
}
