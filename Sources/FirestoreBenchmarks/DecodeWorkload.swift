import FirestoreREST
import Foundation

/// The `decode` workload (issue 4): 10,000 documents decoded into a struct by ``FirestoreDecoder`` straight from
/// their ``FirestoreValue`` trees, against `JSONDecoder` decoding the equivalent plain JSON into the same
/// struct (parsing included: that is what `JSONDecoder` does). Target: at most 2x.
///
/// `decode-rest` is the whole path from bytes for comparison: the `runQuery` response body parsed by the
/// package's JSON parser into documents, then decoded; same baseline, no target. `decode-grpc` is the same from
/// the messages of a gRPC `RunQuery` stream (protobuf, decoded message by message as the client does); target at
/// most 1.0x (issue 29).
enum DecodeWorkload {
    struct Nutrition: Codable {
        var kcal: Int
        var sugar: Double
        var fibre: Double
    }

    struct Fruit: Codable {
        var name: String
        var color: String
        var kcal: Int
        var price: Double
        var isFavourite: Bool
        var stock: Int64
        var tags: [String]
        var nutrition: Nutrition
        var origin: String?
        var rating: Double?
    }

    /// A deterministic generator (64-bit LCG), so every run decodes the same data.
    struct Generator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
    }

    static let colors = ["red", "green", "yellow", "orange", "purple", "brown"]
    static let tags = ["sweet", "sour", "tropical", "citrus", "berry", "stone", "local", "organic"]

    /// `count` fruits as document field maps.
    static func fields(count: Int) -> [[String: FirestoreValue]] {
        var generator = Generator(state: 42)
        return (0..<count).map { index in
            var fields: [String: FirestoreValue] = [
                "name": .string("fruit-\(index)"),
                "color": .string(colors[generator.below(colors.count)]),
                "kcal": .integer(Int64(generator.below(400))),
                "price": .double(Double(generator.below(10_000)) / 100),
                "isFavourite": .boolean(generator.below(2) == 1),
                "stock": .integer(Int64(generator.below(1_000_000_000))),
                "tags": .array((0..<(1 + generator.below(4))).map { _ in .string(tags[generator.below(tags.count)]) }),
                "nutrition": .map([
                    "kcal": .integer(Int64(generator.below(400))),
                    "sugar": .double(Double(generator.below(1000)) / 10),
                    "fibre": .double(Double(generator.below(100)) / 10),
                ]),
            ]
            if generator.below(2) == 1 { fields["origin"] = .string("country-\(generator.below(50))") }
            if generator.below(3) > 0 { fields["rating"] = .double(Double(generator.below(50)) / 10) }
            return fields
        }
    }

    static func run(count: Int = 10_000) throws -> [Measurement] {
        let data = fields(count: count)
        let documents = data.enumerated().map { index, fields in
            Document(name: "projects/bench/databases/(default)/documents/fruits/f\(index)", fields: fields)
        }
        // The same data as plain JSON (what a REST-agnostic model would be decoded from).
        let plainJSON = JSONValue.array(data.map { FirestoreValue.map($0).plainJSON }).serialized()
        // The same data as a runQuery response body.
        let restBody = JSONValue.array(
            documents.map { .object(["document": $0.restJSON(), "readTime": "2024-01-01T00:00:00Z"]) }
        ).serialized()

        let decoder = FirestoreDecoder()
        let jsonDecoder = JSONDecoder()
        var sink = 0
        let check = try documents.map { try decoder.decode(Fruit.self, from: $0) }
        let baselineCheck = try jsonDecoder.decode([Fruit].self, from: plainJSON)
        guard check.count == count, baselineCheck.count == count,
            zip(check, baselineCheck).allSatisfy({ $0.name == $1.name && $0.stock == $1.stock && $0.tags == $1.tags })
        else {
            throw BenchmarkError(message: "decode: FirestoreDecoder and JSONDecoder disagree on the data")
        }

        let decode = try Harness.compare(
            workload: "decode", n: count, baseline: "JSONDecoder",
            candidate: {
                for document in documents { sink &+= try decoder.decode(Fruit.self, from: document).kcal }
            },
            baselineBody: { sink &+= try jsonDecoder.decode([Fruit].self, from: plainJSON).count })
        let fromBytes = try Harness.compare(
            workload: "decode-rest", n: count, baseline: "JSONDecoder",
            candidate: {
                let response = try Firestore.decodeRunQuery(JSONValue.parse(restBody))
                for document in response.documents { sink &+= try decoder.decode(Fruit.self, from: document).kcal }
            },
            baselineBody: { sink &+= try jsonDecoder.decode([Fruit].self, from: plainJSON).count })
        // The same documents as the messages of a gRPC RunQuery stream (`RunQueryResponse { document = 1,
        // read_time = 3 }`).
        let messages = documents.map { document -> [UInt8] in
            var writer = ProtobufWriter()
            writer.writeMessageField(1) { document.writeProtobuf(to: &$0) }
            writer.writeMessageField(3) { Timestamp.minimum.writeProtobuf(to: &$0) }
            return writer.bytes
        }
        let fromProtobuf = try Harness.compare(
            workload: "decode-grpc", n: count, baseline: "JSONDecoder", target: 1.0,
            candidate: {
                let response = try Firestore.decodeRunQuery(messages: messages)
                for document in response.documents { sink &+= try decoder.decode(Fruit.self, from: document).kcal }
            },
            baselineBody: { sink &+= try jsonDecoder.decode([Fruit].self, from: plainJSON).count })
        if sink == 42 { print("") }  // keeps the results alive
        return [decode, fromBytes, fromProtobuf]
    }
}
