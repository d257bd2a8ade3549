import Foundation
import Testing

@testable import FirestoreREST

/// The SDK's `FirestoreEncoderTests` (firebase-semantics.md §3.8, 31 tests), in ``FirestoreValue`` terms: "round
/// trips to D" means encoding yields exactly D and decoding D yields the model back.
@Suite(.timeLimit(.minutes(2))) struct FirestoreEncoderTests {
    // 1
    @Test func int() throws {
        struct Model: Codable, Equatable { let x: Int }
        try expectRoundTrip(Model(x: 42), ["x": .integer(42)])
    }

    // 2
    @Test func empty() throws {
        struct Model: Codable, Equatable {}
        try expectRoundTrip(Model(), [:])
    }

    // 3
    @Test func string() throws {
        struct Model: Codable, Equatable { let s: String }
        try expectRoundTrip(Model(s: "abc"), ["s": .string("abc")])
    }

    // 4
    @Test func optional() throws {
        struct Model: Codable, Equatable {
            let x: Int
            let opt: Int?
        }
        try expectRoundTrip(Model(x: 42, opt: nil), ["x": .integer(42)])
        try expectRoundTrip(Model(x: 42, opt: 7), ["x": .integer(42), "opt": .integer(7)])
        #expect(
            try FirestoreDecoder().decode(Model.self, from: ["x": .integer(42), "opt": .integer(5)])
                == Model(x: 42, opt: 5))
        let decoder = FirestoreDecoder()
        let bool = thrownError { try decoder.decode(Model.self, from: ["x": .integer(42), "opt": .boolean(true)]) }
        #expect(bool.map(codingMessage) == "opt: expected Int, found booleanValue")
        let string = thrownError { try decoder.decode(Model.self, from: ["x": .integer(42), "opt": .string("abc")]) }
        #expect(string.map(codingMessage) == "opt: expected Int, found stringValue")
        let fraction = thrownError { try decoder.decode(Model.self, from: ["x": .double(45.55), "opt": .integer(5)]) }
        #expect(fraction.map(codingMessage) == "x: expected Int, found doubleValue 45.55 (not a whole number)")
        let missing = thrownError { try decoder.decode(Model.self, from: ["opt": .integer(5)]) }
        #expect(missing.map(codingMessage) == "x: required field is missing")
        guard case DecodingError.keyNotFound(let key, _)? = missing else {
            Issue.record("expected keyNotFound, got \(String(describing: missing))")
            return
        }
        #expect(key.stringValue == "x")
    }

    // 5
    @Test func enumWithAssociatedValues() throws {
        enum Mixed: Codable, Equatable {
            case num(Int)
            case text(String)
            case timestamp(Timestamp)

            private enum CodingKeys: String, CodingKey { case num, text, timestamp }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                if let number = try container.decodeIfPresent(Int.self, forKey: .num) {
                    self = .num(number)
                } else if let text = try container.decodeIfPresent(String.self, forKey: .text) {
                    self = .text(text)
                } else {
                    self = .timestamp(try container.decode(Timestamp.self, forKey: .timestamp))
                }
            }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                switch self {
                case .num(let number): try container.encode(number, forKey: .num)
                case .text(let text): try container.encode(text, forKey: .text)
                case .timestamp(let time): try container.encode(time, forKey: .timestamp)
                }
            }
        }
        struct Model: Codable, Equatable {
            let x: Int
            let e: Mixed
        }
        try expectRoundTrip(Model(x: 42, e: .num(4)), ["x": .integer(42), "e": .map(["num": .integer(4)])])
        try expectRoundTrip(Model(x: 43, e: .text("abc")), ["x": .integer(43), "e": .map(["text": .string("abc")])])
        try expectRoundTrip(
            Model(x: 43, e: .timestamp(ts(1_700_000_000, 5))),
            ["x": .integer(43), "e": .map(["timestamp": .timestamp(ts(1_700_000_000, 5))])])
    }

    // 6
    @Test func geoPoint() throws {
        struct Model: Codable, Equatable { let p: GeoPoint }
        try expectRoundTrip(
            Model(p: GeoPoint(latitude: 1, longitude: -2)), ["p": .geoPoint(GeoPoint(latitude: 1, longitude: -2))])
    }

    // 7
    @Test func date() throws {
        struct Model: Codable, Equatable { let date: Date }
        // 2001-01-01T00:00:00Z is 978,307,200 seconds after the Unix epoch.
        try expectRoundTrip(Model(date: Date(timeIntervalSinceReferenceDate: 0)), ["date": .timestamp(ts(978_307_200))])
    }

    // 8
    @Test func timestampCanDecodeAsDate() throws {
        struct TimestampModel: Codable, Equatable { let date: Timestamp }
        struct DateModel: Codable, Equatable { let date: Date }
        let encoded = try FirestoreEncoder().encode(TimestampModel(date: ts(1_700_000_000, 500_000_000)))
        #expect(encoded == ["date": .timestamp(ts(1_700_000_000, 500_000_000))])
        let decoded = try FirestoreDecoder().decode(DateModel.self, from: encoded)
        #expect(decoded == DateModel(date: Date(timeIntervalSince1970: 1_700_000_000.5)))
    }

    // 9
    @Test func documentReference() throws {
        struct Model: Codable, Equatable { let doc: DocumentReference }
        let db = try offlineFirestore()
        try expectRoundTrip(
            Model(doc: db.document("abc/xyz")), ["doc": .reference("projects/p/databases/(default)/documents/abc/xyz")],
            in: db.document("models/m"))
    }

    // 10
    @Test func encodingDocumentReferenceThrowsWithJSONEncoder() throws {
        let reference = try offlineFirestore().document("abc/xyz")
        let error = thrownError { try JSONEncoder().encode(["doc": reference]) }
        #expect(error.map(codingMessage) == "DocumentReference can only be encoded by FirestoreEncoder")
    }

    // 11
    @Test func encodingDocumentReferenceNotEmbeddedThrows() throws {
        let reference = try offlineFirestore().document("abc/xyz")
        let error = thrownError { try FirestoreEncoder().encode(reference) }
        #expect(
            error.map(codingMessage)
                == "top-level DocumentReference encoded as referenceValue, not as a map: document data is a map of fields"
        )
    }

    // 12
    @Test func timestamp() throws {
        struct Model: Codable, Equatable { let timestamp: Timestamp }
        try expectRoundTrip(
            Model(timestamp: ts(1_700_000_000, 123_456_789)), ["timestamp": .timestamp(ts(1_700_000_000, 123_456_789))])
    }

    // 13
    @Test func badValue() throws {
        struct Model: Codable, Equatable { let x: Int }
        let error = thrownError { try FirestoreDecoder().decode(Model.self, from: ["x": .string("abc")]) }
        #expect(error.map(codingMessage) == "x: expected Int, found stringValue")
        #expect(error.map(codingPath) == ["x"])
    }

    // 14
    @Test func valueTooBig() throws {
        struct Model: Codable, Equatable { let x: CChar }
        try expectRoundTrip(Model(x: 42), ["x": .integer(42)])
        let error = thrownError { try FirestoreDecoder().decode(Model.self, from: ["x": .integer(12345)]) }
        #expect(error.map(codingMessage) == "x: 12345 is out of range for Int8")
    }

    // 15
    @Test func beans() throws {
        struct Model: Codable, Equatable {
            var s = "abc"
            var d = 123.0
            var f: Float = -4
            var l: Int64 = 1_234_567_890_123
            var i = -4444
            var b = false
            var sh: Int16 = 123
            var byte: Int8 = 45
            var uchar: UInt8 = 44
            var ai = [1, 2, 3, 4]
            var si = ["abc", "def"]
            var caseSensitive = "aaa"
            var casESensitive = "bbb"
            var casESensitivE = "ccc"
        }
        try expectRoundTrip(
            Model(),
            [
                "s": .string("abc"), "d": .double(123), "f": .double(-4), "l": .integer(1_234_567_890_123),
                "i": .integer(-4444), "b": .boolean(false), "sh": .integer(123), "byte": .integer(45),
                "uchar": .integer(44), "ai": .array([.integer(1), .integer(2), .integer(3), .integer(4)]),
                "si": .array([.string("abc"), .string("def")]), "caseSensitive": .string("aaa"),
                "casESensitive": .string("bbb"), "casESensitivE": .string("ccc"),
            ])
    }

    // 16
    @Test func codingKeysCanCustomizeEncodingAndDecoding() throws {
        struct Model: Codable, Equatable {
            var s: String
            var ms = "filler"
            var d: Double
            var md = 42.42
            enum CodingKeys: String, CodingKey { case s, d }
        }
        let encoded = try FirestoreEncoder().encode(Model(s: "abc", ms: "dummy", d: 123.3, md: 0))
        #expect(encoded == ["s": .string("abc"), "d": .double(123.3)])
        #expect(
            try FirestoreDecoder().decode(Model.self, from: encoded)
                == Model(s: "abc", ms: "filler", d: 123.3, md: 42.42))
    }

    // 17
    @Test func nestedObjects() throws {
        struct SecondLevel: Codable, Equatable {
            var age: Int64
            var weight: Double
        }
        struct FirstLevel: Codable, Equatable { var group: String }
        struct Model: Codable, Equatable {
            var id: Int64
            var group: FirstLevel
            var groupList: [SecondLevel]
            var groupMap: [String: SecondLevel]
            var point: GeoPoint
        }
        let model = Model(
            id: 123, group: FirstLevel(group: "g1"),
            groupList: [SecondLevel(age: 20, weight: 80.1), SecondLevel(age: 25, weight: 85.1)],
            groupMap: ["name1": SecondLevel(age: 30, weight: 64.2), "name2": SecondLevel(age: 35, weight: 79.2)],
            point: GeoPoint(latitude: 12.0, longitude: 9.1))
        try expectRoundTrip(
            model,
            [
                "id": .integer(123),
                "group": .map(["group": .string("g1")]),
                "groupList": .array([
                    .map(["age": .integer(20), "weight": .double(80.1)]),
                    .map(["age": .integer(25), "weight": .double(85.1)]),
                ]),
                "groupMap": .map([
                    "name1": .map(["age": .integer(30), "weight": .double(64.2)]),
                    "name2": .map(["age": .integer(35), "weight": .double(79.2)]),
                ]),
                "point": .geoPoint(GeoPoint(latitude: 12.0, longitude: 9.1)),
            ])
    }

    // 18
    @Test func collapsingNestedObjects() throws {
        struct Model: Codable, Equatable {
            var id: Int
            var name: String
            private enum CodingKeys: String, CodingKey { case id, nested }
            private enum NestedKeys: String, CodingKey { case name }
            init(id: Int, name: String) {
                self.id = id
                self.name = name
            }
            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(Int.self, forKey: .id)
                name = try container.nestedContainer(keyedBy: NestedKeys.self, forKey: .nested)
                    .decode(String.self, forKey: .name)
            }
            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(id, forKey: .id)
                var nested = container.nestedContainer(keyedBy: NestedKeys.self, forKey: .nested)
                try nested.encode(name, forKey: .name)
            }
        }
        try expectRoundTrip(
            Model(id: 12345, name: "ModelName"),
            ["id": .integer(12345), "nested": .map(["name": .string("ModelName")])])
    }

    // 19
    @Test func classHierarchy() throws {
        let model = SubModel()
        let encoded = try FirestoreEncoder().encode(model)
        #expect(
            encoded == [
                "super": .map(["superPower": .double(100), "superName": .string("name")]),
                "timestamp": .timestamp(ts(123_456_789, 654_321)),
            ])
        let decoded = try FirestoreDecoder().decode(SubModel.self, from: encoded)
        #expect(decoded.superPower == 100)
        #expect(decoded.superName == "name")
        #expect(decoded.timestamp == ts(123_456_789, 654_321))
    }

    // 20
    @Test func encodingEncodableArrayNotSupported() throws {
        struct Model: Codable { var name: String }
        let error = thrownError { try FirestoreEncoder().encode([Model(name: "a")]) }
        #expect(
            error.map(codingMessage)
                == "top-level Array<Model> encoded as arrayValue, not as a map: document data is a map of fields")
    }

    // 21
    @Test func fieldValuePassthrough() throws {
        struct Model: Encodable { var fieldValue = FieldValue.delete() }
        #expect(try FirestoreEncoder().encodeForWrite(Model()) == ["fieldValue": .delete])
        // The plain form refuses a sentinel, naming the field.
        let error = thrownError { try FirestoreEncoder().encode(Model()) }
        #expect(
            error.map(codingMessage)
                == "fieldValue: FieldValue.delete() is a write sentinel, not a value; use encodeForWrite(_:) or setData(from:)"
        )
        #expect(error.map(codingPath) == ["fieldValue"])
    }

    // 22
    @Test func encodingFieldValueNotEmbeddedThrows() {
        let error = thrownError { try FirestoreEncoder().encodeForWrite(FieldValue.serverTimestamp()) }
        #expect(
            error.map(codingMessage)
                == "top-level FieldValue encoded as FieldValue.serverTimestamp(), not as a map: document data is a map of fields"
        )
    }

    // 23
    @Test func serverTimestamp() throws {
        struct Model: Codable, Equatable { @ServerTimestamp var timestamp: Timestamp? }
        #expect(try FirestoreEncoder().encodeForWrite(Model()) == ["timestamp": .serverTimestamp])
        try expectRoundTrip(
            Model(timestamp: ts(123_456_789, 4321)), ["timestamp": .timestamp(ts(123_456_789, 4321))])
        #expect(try FirestoreDecoder().decode(Model.self, from: ["timestamp": .null]) == Model(timestamp: nil))
    }

    // 24
    @Test func serverTimestampOfDate() throws {
        struct Model: Codable, Equatable { @ServerTimestamp var date: Date? }
        #expect(try FirestoreEncoder().encodeForWrite(Model()) == ["date": .serverTimestamp])
        try expectRoundTrip(
            Model(date: Date(timeIntervalSince1970: 123_456_789)), ["date": .timestamp(ts(123_456_789))])
        #expect(try FirestoreDecoder().decode(Model.self, from: ["date": .null]) == Model(date: nil))
    }

    // 25
    @Test func serverTimestampUserType() throws {
        struct Model: Codable, Equatable { @ServerTimestamp var timestamp: ISO8601Text? }
        #expect(try FirestoreEncoder().encodeForWrite(Model()) == ["timestamp": .serverTimestamp])
        // The SDK expects nanos 122999906 (the Double of the date, truncated); Timestamp(date:) rounds to the
        // microsecond Firestore stores, so here it is exactly .123.
        try expectRoundTrip(
            Model(timestamp: ISO8601Text(text: "2019-10-07T21:33:51.123Z")),
            ["timestamp": .timestamp(ts(1_570_484_031, 123_000_000))])
        let error = thrownError {
            try FirestoreEncoder().encodeForWrite(Model(timestamp: ISO8601Text(text: "Invalid date")))
        }
        #expect(error.map(codingMessage) == "timestamp: not a date: Invalid date")
    }

    // 26
    @Test func explicitNull() throws {
        struct Model: Codable, Equatable { @ExplicitNull var name: String? }
        try expectRoundTrip(Model(name: nil), ["name": .null])
        try expectRoundTrip(Model(name: "good name"), ["name": .string("good name")])
    }

    // 27
    @Test func automaticallyPopulatesDocumentIDOnDocumentReference() throws {
        struct Model: Codable, Equatable {
            var name: String
            @DocumentID var docId: DocumentReference?
        }
        let db = try offlineFirestore()
        let decoded = try FirestoreDecoder().decode(
            Model.self, from: ["name": .string("abc")], in: db.document("abc/123"))
        #expect(decoded == Model(name: "abc", docId: db.document("abc/123")))
    }

    // 28
    @Test func automaticallyPopulatesDocumentIDOnString() throws {
        struct Model: Codable, Equatable {
            var name: String
            @DocumentID var docId: String?
        }
        let db = try offlineFirestore()
        let decoded = try FirestoreDecoder().decode(
            Model.self, from: ["name": .string("abc")], in: db.document("abc/123"))
        #expect(decoded == Model(name: "abc", docId: "123"))
    }

    // 29
    @Test func documentIDIgnoredInEncoding() throws {
        struct Model: Codable, Equatable {
            var name: String
            @DocumentID var docId: DocumentReference?
        }
        let db = try offlineFirestore()
        #expect(
            try FirestoreEncoder().encode(Model(name: "abc", docId: db.document("abc/xyz"))) == ["name": .string("abc")]
        )
    }

    // 30
    @Test func documentIDWithJSONEncoderThrows() throws {
        struct Model: Codable { @DocumentID var docId: String? }
        let error = thrownError { try JSONEncoder().encode(Model(docId: "abc")) }
        #expect(
            error.map(codingMessage)
                == "@DocumentID is not encodable: FirestoreEncoder skips it, other encoders cannot write it")
    }

    // 31
    @Test func decodingDocumentIDWithConflictingFieldsDoesNotThrow() throws {
        struct Model: Codable, Equatable {
            var name: String
            @DocumentID var docId: String?
        }
        let db = try offlineFirestore()
        let decoded = try FirestoreDecoder().decode(
            Model.self, from: ["name": .string("abc"), "docId": .string("Does not cause conflict")],
            in: db.document("abc/123"))
        #expect(decoded == Model(name: "abc", docId: "123"))
    }
}

/// Test 19's superclass.
class SuperModel: Codable {
    var superPower: Double? = 100.0
    var superName: String? = "name"
}

/// Test 19's subclass, which encodes its superclass under `super`.
final class SubModel: SuperModel {
    var timestamp: Timestamp? = Timestamp(uncheckedSeconds: 123_456_789, nanos: 654_321)

    private enum CodingKeys: String, CodingKey { case timestamp }

    override init() { super.init() }

    required init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        timestamp = try container.decode(Timestamp.self, forKey: .timestamp)
        try super.init(from: container.superDecoder())
    }

    override func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try super.encode(to: container.superEncoder())
        try container.encode(timestamp, forKey: .timestamp)
    }
}

/// Test 25's user type: a `String` date in the SDK test's format `yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX`, UTC.
struct ISO8601Text: Codable, Equatable, ServerTimestampWrappable {
    var text: String

    struct NotADate: Error, CustomStringConvertible {
        var text: String
        var description: String { "not a date: \(text)" }
    }

    private static func formatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSXXXXX"
        formatter.timeZone = TimeZone(secondsFromGMT: 0)
        return formatter
    }

    static func wrap(_ timestamp: Timestamp) throws -> ISO8601Text {
        ISO8601Text(text: formatter().string(from: timestamp.dateValue))
    }

    static func unwrap(_ value: ISO8601Text) throws -> Timestamp {
        guard let date = formatter().date(from: value.text) else { throw NotADate(text: value.text) }
        return Timestamp(date: date)
    }
}
