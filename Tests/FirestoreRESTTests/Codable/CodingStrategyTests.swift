import Foundation
import Testing

@testable import FirestoreREST

/// Key, date, data and nil strategies (firebase-semantics.md §3.6). The snake-case tables are Foundation's
/// `JSONEncoder`/`JSONDecoder` outputs for the same keys (quirks included: `URL` becomes `u_rl`).
@Suite(.timeLimit(.minutes(2))) struct CodingStrategyTests {
    @Test(arguments: [
        ("snakeCase", "snake_case"), ("myURLProperty", "my_url_property"), ("URL", "u_rl"), ("url", "url"),
        ("camelCaseWord", "camel_case_word"), ("ALLCAPS", "a_llcaps"), ("_leading", "_leading"),
        ("trailing_", "trailing_"), ("a", "a"), ("A", "a"), ("aB", "a_b"), ("theURLIsHere", "the_url_is_here"),
        ("já_é", "já_é"), ("isFavourite", "is_favourite"),
    ])
    func convertToSnakeCaseMatchesFoundation(key: String, expected: String) {
        #expect(SnakeCase.fromCamelCase(key) == expected)
    }

    @Test(arguments: [
        ("snake_case", "snakeCase"), ("_leading_under", "_leadingUnder"), ("trailing_under__", "trailingUnder__"),
        ("one", "one"), ("ONE_TWO", "oneTwo"), ("a__b", "aB"), ("__", "__"), ("my_url_property", "myUrlProperty"),
        ("alreadyCamel", "alreadyCamel"), ("x_y_z", "xYZ"), ("", ""), ("kcal_per100g", "kcalPer100G"),
    ])
    func convertFromSnakeCaseMatchesFoundation(key: String, expected: String) {
        #expect(SnakeCase.toCamelCase(key) == expected)
    }

    @Test func snakeCaseAppliesToNestedModels() throws {
        struct Inner: Codable, Equatable { var kcalPerServing: Int }
        struct Model: Codable, Equatable {
            var isFavourite: Bool
            var nutritionFacts: Inner
        }
        var encoder = FirestoreEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        var decoder = FirestoreDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        try expectRoundTrip(
            Model(isFavourite: true, nutritionFacts: Inner(kcalPerServing: 52)),
            ["is_favourite": .boolean(true), "nutrition_facts": .map(["kcal_per_serving": .integer(52)])],
            encoder: encoder, decoder: decoder)
    }

    @Test func customKeyStrategies() throws {
        struct Model: Codable, Equatable { var name: String }
        var encoder = FirestoreEncoder()
        encoder.keyEncodingStrategy = .custom { path in StringCodingKey("f_" + (path.last?.stringValue ?? "")) }
        var decoder = FirestoreDecoder()
        decoder.keyDecodingStrategy = .custom { path in
            StringCodingKey(String((path.last?.stringValue ?? "").dropFirst(2)))
        }
        try expectRoundTrip(Model(name: "x"), ["f_name": .string("x")], encoder: encoder, decoder: decoder)
    }

    @Test func convertedKeyCollisionIsDeterministic() throws {
        struct Model: Codable, Equatable { var aB: Int }
        var decoder = FirestoreDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        // `a__b` and `a_b` both become `aB`; the stored name that sorts first (`a__b`) wins.
        #expect(try decoder.decode(Model.self, from: ["a_b": 1, "a__b": 2]) == Model(aB: 2))
    }

    // MARK: Dates

    struct Dated: Codable, Equatable { var at: Date }
    static let instant = Date(timeIntervalSince1970: 1_570_484_031.5)

    @Test func dateStrategiesEncode() throws {
        var encoder = FirestoreEncoder()
        #expect(try encoder.encode(Dated(at: Self.instant)) == ["at": .timestamp(ts(1_570_484_031, 500_000_000))])
        encoder.dateEncodingStrategy = .secondsSince1970
        #expect(try encoder.encode(Dated(at: Self.instant)) == ["at": .double(1_570_484_031.5)])
        encoder.dateEncodingStrategy = .millisecondsSince1970
        #expect(try encoder.encode(Dated(at: Self.instant)) == ["at": .double(1_570_484_031_500)])
        encoder.dateEncodingStrategy = .iso8601
        #expect(try encoder.encode(Dated(at: Self.instant)) == ["at": .string("2019-10-07T21:33:51Z")])
        encoder.dateEncodingStrategy = .deferredToDate
        // Date's own encoding: seconds since 2001-01-01 (1_570_484_031.5 - 978_307_200).
        #expect(try encoder.encode(Dated(at: Self.instant)) == ["at": .double(592_176_831.5)])
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode("day \(Int(date.timeIntervalSince1970) / 86_400)")
        }
        #expect(try encoder.encode(Dated(at: Self.instant)) == ["at": .string("day 18176")])
    }

    @Test func dateStrategiesDecode() throws {
        var decoder = FirestoreDecoder()
        #expect(
            try decoder.decode(Dated.self, from: ["at": .timestamp(ts(1_570_484_031, 500_000_000))])
                == Dated(at: Self.instant))
        let wrong = thrownError { try decoder.decode(Dated.self, from: ["at": .double(1)]) }
        #expect(wrong.map(codingMessage) == "at: expected Timestamp, found doubleValue")
        decoder.dateDecodingStrategy = .secondsSince1970
        #expect(try decoder.decode(Dated.self, from: ["at": .double(1_570_484_031.5)]) == Dated(at: Self.instant))
        #expect(
            try decoder.decode(Dated.self, from: ["at": .integer(10)]) == Dated(at: Date(timeIntervalSince1970: 10)))
        decoder.dateDecodingStrategy = .millisecondsSince1970
        #expect(try decoder.decode(Dated.self, from: ["at": .integer(1_570_484_031_500)]) == Dated(at: Self.instant))
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(Dated.self, from: ["at": "2019-10-07T23:33:51.5+02:00"]) == Dated(at: Self.instant))
        let bad = thrownError { try decoder.decode(Dated.self, from: ["at": "yesterday"]) }
        #expect(codingPath(bad ?? CancellationError()) == ["at"])
        decoder.dateDecodingStrategy = .deferredToDate
        #expect(try decoder.decode(Dated.self, from: ["at": .double(592_176_831.5)]) == Dated(at: Self.instant))
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            guard text == "epoch" else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not epoch"))
            }
            return Date(timeIntervalSince1970: 0)
        }
        #expect(try decoder.decode(Dated.self, from: ["at": "epoch"]) == Dated(at: Date(timeIntervalSince1970: 0)))
        struct Oops: Error, CustomStringConvertible { var description: String { "oops" } }
        decoder.dateDecodingStrategy = .custom { _ in throw Oops() }
        let custom = thrownError {
            try decoder.decode(Dated.self, from: ["at": "x"], in: try offlineFirestore().document("c/d"))
        }
        #expect(custom.map(codingMessage) == "c/d: at: oops")
    }

    // MARK: Data

    struct Blob: Codable, Equatable { var data: Data }

    @Test func dataStrategies() throws {
        let bytes = Data([0, 1, 255])
        var encoder = FirestoreEncoder()
        var decoder = FirestoreDecoder()
        #expect(try encoder.encode(Blob(data: bytes)) == ["data": .bytes(bytes)])
        #expect(try decoder.decode(Blob.self, from: ["data": .string("AAH/")]) == Blob(data: bytes))
        let notBase64 = thrownError { try decoder.decode(Blob.self, from: ["data": .string("not base64!")]) }
        #expect(notBase64.map(codingMessage) == "data: expected base64 data, found a string that is not base64")
        encoder.dataEncodingStrategy = .base64
        decoder.dataDecodingStrategy = .base64
        try expectRoundTrip(Blob(data: bytes), ["data": .string("AAH/")], encoder: encoder, decoder: decoder)
        #expect(try decoder.decode(Blob.self, from: ["data": .bytes(bytes)]) == Blob(data: bytes))
        encoder.dataEncodingStrategy = .deferredToData
        decoder.dataDecodingStrategy = .deferredToData
        try expectRoundTrip(
            Blob(data: bytes), ["data": .array([.integer(0), .integer(1), .integer(255)])], encoder: encoder,
            decoder: decoder)
        encoder.dataEncodingStrategy = .custom { data, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(data.count)
        }
        decoder.dataDecodingStrategy = .custom { decoder in
            Data(count: try decoder.singleValueContainer().decode(Int.self))
        }
        try expectRoundTrip(Blob(data: Data(count: 3)), ["data": .integer(3)], encoder: encoder, decoder: decoder)
    }
}
