import Foundation
import Testing

@testable import FirestoreREST

/// The SDK's smaller Codable suites (firebase-semantics.md §3.8): CodableGeoPointTests, CodableTimestampTests,
/// ConditionalConformanceTests, EncodableFieldValueTests, and the FirebaseDataEncoderTests cases beyond
/// FirestoreEncoderTests (null as nil, snake case, blobs).
@Suite(.timeLimit(.minutes(2))) struct CodableSupportTypesTests {
    // MARK: CodableGeoPointTests (3)

    @Test func geoPointEncodesWithJSONEncoder() throws {
        let json = String(
            decoding: try JSONEncoder().encode(GeoPoint(latitude: 37.77493, longitude: -122.41942)), as: UTF8.self)
        #expect(json.contains("\"latitude\":37."))
        #expect(json.contains("\"longitude\":-122."))
    }

    @Test func geoPointDecodesWithJSONDecoder() throws {
        let point = try JSONDecoder().decode(
            GeoPoint.self, from: Data(#"{"latitude": 37.77493, "longitude": -122.41942}"#.utf8))
        #expect(abs(point.latitude - 37.77493) < 0.0001)
        #expect(abs(point.longitude - -122.41942) < 0.0001)
    }

    @Test func equalGeoPointsHashEqual() {
        let table = [GeoPoint(latitude: 37.77493, longitude: -122.41942): "foo"]
        #expect(table[GeoPoint(latitude: 37.77493, longitude: -122.41942)] == "foo")
    }

    // MARK: CodableTimestampTests (2)

    @Test func timestampEncodesWithJSONEncoder() throws {
        let json = String(decoding: try JSONEncoder().encode(ts(37, 123)), as: UTF8.self)
        #expect(json.contains("\"seconds\":37"))
        #expect(json.contains("\"nanoseconds\":123"))
    }

    @Test func timestampDecodesWithJSONDecoder() throws {
        let time = try JSONDecoder().decode(Timestamp.self, from: Data(#"{"seconds": 37, "nanoseconds": 122}"#.utf8))
        #expect(time.seconds == 37)
        #expect(time.nanos == 122)
    }

    @Test func timestampFromJSONIsRangeChecked() {
        let error = thrownError {
            try JSONDecoder().decode(Timestamp.self, from: Data(#"{"seconds": 37, "nanoseconds": 1000000000}"#.utf8))
        }
        #expect(error.map(codingMessage) == "Timestamp nanos 1000000000 is outside 0...999999999")
    }

    // MARK: ConditionalConformanceTests (6)

    @Test func hashableBaselineAsDictionaryKey() {
        struct Model: Hashable { var x: Int }
        let table = [Model(x: 42): "answer"]
        #expect(table[Model(x: 42)] == "answer")
    }

    @Test func documentIDOfStringIsEquatableAndHashable() {
        struct Model: Codable, Hashable { @DocumentID var id: String? }
        #expect(Model(id: "42") == Model(id: "42"))
        #expect(Model(id: "42") != Model(id: "1"))
        let table = [Model(id: "42"): "found"]
        #expect(table[Model(id: "42")] == "found")
        #expect(table[Model(id: "1")] == nil)
    }

    @Test func documentIDOfReferenceIsEquatableAndHashable() throws {
        struct Model: Codable, Hashable { @DocumentID var ref: DocumentReference? }
        let db = try offlineFirestore()
        #expect(Model(ref: db.document("abc/xyz")) == Model(ref: db.document("abc/xyz")))
        #expect(Model(ref: db.document("abc/xyz")) != Model(ref: db.document("abc/def")))
        let table = [Model(ref: db.document("abc/xyz")): "found"]
        #expect(table[Model(ref: db.document("abc/xyz"))] == "found")
    }

    @Test func explicitNullIsEquatableAndHashable() {
        struct Model: Codable, Hashable { @ExplicitNull var x: Int? }
        #expect(Model(x: 42) == Model(x: 42))
        #expect(Model(x: 42) != Model(x: 1))
        #expect([Model(x: 42): "found"][Model(x: 42)] == "found")
    }

    @Test func serverTimestampOfTimestampIsEquatableAndHashable() {
        struct Model: Codable, Hashable { @ServerTimestamp var time: Timestamp? }
        #expect(Model(time: ts(123, 456)) == Model(time: ts(123, 456)))
        #expect(Model(time: ts(123, 456)) != Model(time: ts(789, 0)))
        #expect([Model(time: ts(123, 456)): "found"][Model(time: ts(123, 456))] == "found")
    }

    @Test func serverTimestampOfDateIsEquatableAndHashable() {
        struct Model: Codable, Hashable { @ServerTimestamp var date: Date? }
        #expect(Model(date: Date(timeIntervalSince1970: 42)) == Model(date: Date(timeIntervalSince1970: 42)))
        #expect(Model(date: Date(timeIntervalSince1970: 42)) != Model(date: Date(timeIntervalSince1970: 100)))
        #expect(
            [Model(date: Date(timeIntervalSince1970: 42)): "found"][Model(date: Date(timeIntervalSince1970: 42))]
                == "found")
    }

    // MARK: EncodableFieldValueTests (1)

    @Test func fieldValueWithJSONEncoderThrows() {
        let error = thrownError { try JSONEncoder().encode(["x": FieldValue.delete()]) }
        #expect(error.map(codingMessage) == "FieldValue.delete() can only be encoded by FirestoreEncoder")
    }

    @Test func nilServerTimestampWithJSONEncoderThrows() {
        struct Model: Codable { @ServerTimestamp var time: Timestamp? }
        let error = thrownError { try JSONEncoder().encode(Model()) }
        #expect(error.map(codingMessage) == "FieldValue.serverTimestamp() can only be encoded by FirestoreEncoder")
    }

    // MARK: FirebaseDataEncoderTests extras

    @Test func nullDecodesAsNil() throws {
        #expect(try FirestoreDecoder().decode(Int?.self, from: .null) == nil)
        struct Model: Codable, Equatable { var x: Int? }
        #expect(try FirestoreDecoder().decode(Model.self, from: ["x": .null]) == Model(x: nil))
    }

    @Test func caseConversion() throws {
        struct Model: Codable, Equatable { var snakeCase: Int }
        var encoder = FirestoreEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var decoder = FirestoreDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        try expectRoundTrip(Model(snakeCase: 42), ["snake_case": .integer(42)], encoder: encoder, decoder: decoder)
    }

    @Test func blobsRoundTrip() throws {
        struct Model: Codable, Equatable {
            var data: Data
            var optional: Data?
        }
        let deadbeef = Data([0xDE, 0xAD, 0xBE, 0xEF])
        let abcdef = Data("abcdef".utf8)
        try expectRoundTrip(
            Model(data: deadbeef, optional: abcdef), ["data": .bytes(deadbeef), "optional": .bytes(abcdef)])
        try expectRoundTrip(Model(data: abcdef, optional: nil), ["data": .bytes(abcdef)])
    }

    @Test func base64EncodingDecodesAsBlob() throws {
        struct Model: Codable, Equatable { var data: Data }
        var encoder = FirestoreEncoder()
        encoder.dataEncodingStrategy = .base64
        let encoded = try encoder.encode(Model(data: Data("abcdef".utf8)))
        #expect(encoded == ["data": .string("YWJjZGVm")])
        #expect(try FirestoreDecoder().decode(Model.self, from: encoded) == Model(data: Data("abcdef".utf8)))
    }
}

/// The SDK's newer `FirestoreDecoderTests` (firebase-semantics.md §3.9): a reused decoder never reuses the
/// previous call's document, and `userInfo` passes through unchanged.
@Suite(.timeLimit(.minutes(2))) struct FirestoreDecoderReuseTests {
    struct Model: Codable, Equatable {
        var name: String
        @DocumentID var docId: String?
    }

    @Test func reusedDecoderDoesNotReusePreviousReference() throws {
        let db = try offlineFirestore()
        let decoder = FirestoreDecoder()
        #expect(
            try decoder.decode(Model.self, from: ["name": .string("first")], in: db.document("coll/first"))
                == Model(name: "first", docId: "first"))
        let expected =
            "docId: @DocumentID needs the document: decode a DocumentSnapshot, or pass `in:` the document's reference"
        // With reference nil, on a new decoder and on the reused one, and without `in:`.
        let fresh = thrownError {
            try FirestoreDecoder().decode(Model.self, from: ["name": .string("second")], in: nil)
        }
        #expect(fresh.map(codingMessage) == expected)
        let reusedNil = thrownError { try decoder.decode(Model.self, from: ["name": .string("second")], in: nil) }
        #expect(reusedNil.map(codingMessage) == expected)
        let reusedBare = thrownError { try decoder.decode(Model.self, from: ["name": .string("second")]) }
        #expect(reusedBare.map(codingMessage) == expected)
        guard case DecodingError.valueNotFound? = reusedBare else {
            Issue.record("expected valueNotFound, got \(String(describing: reusedBare))")
            return
        }
        #expect(
            try decoder.decode(Model.self, from: ["name": .string("third")], in: db.document("coll/third"))
                == Model(name: "third", docId: "third"))
    }

    @Test func decodingWithReferencePassesUserInfoThroughUnchanged() throws {
        struct Probe: Decodable, Equatable {
            static let key = CodingUserInfoKey(rawValue: "custom")!
            var seen: String?
            var name: String
            @DocumentID var docId: String?
            enum CodingKeys: String, CodingKey { case name, docId }
            init(from decoder: any Decoder) throws {
                seen = decoder.userInfo[Self.key] as? String
                let container = try decoder.container(keyedBy: CodingKeys.self)
                name = try container.decode(String.self, forKey: .name)
                _docId = try container.decode(DocumentID<String>.self, forKey: .docId)
            }
            init(seen: String?, name: String, docId: String?) {
                self.seen = seen
                self.name = name
                self.docId = docId
            }
        }
        var decoder = FirestoreDecoder()
        decoder.userInfo[Probe.key] = "custom value"
        let decoded = try decoder.decode(
            Probe.self, from: ["name": .string("n")], in: try offlineFirestore().document("c/d"))
        #expect(decoded == Probe(seen: "custom value", name: "n", docId: "d"))
        #expect(decoder.userInfo.count == 1)
        #expect(decoder.userInfo[Probe.key] as? String == "custom value")
    }
}
