import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// ``VectorValue`` in Codable models, as the Firebase Apple SDK codes it (`VectorValue+Codable.swift`): a vector to
/// the Firestore coders, `{"array": [...]}` to any other coder; a `[Double]` stays an array.
@Suite(.timeLimit(.minutes(2))) struct VectorCodableTests {
    struct Item: Codable, Equatable {
        var name: String
        var embedding: VectorValue
        var scores: [Double]
        var maybe: VectorValue?
    }

    @Test func onlyAVectorValuePropertyBecomesAVector() throws {
        let item = Item(name: "fig", embedding: VectorValue([0.1, 0.3, 0.4]), scores: [1, 2], maybe: nil)
        try expectRoundTrip(
            item,
            [
                "name": "fig",
                "embedding": .map(["__type__": "__vector__", "value": [0.1, 0.3, 0.4]]),
                "scores": [1.0, 2.0],
            ])
        let withOptional = Item(name: "fig", embedding: VectorValue([1]), scores: [], maybe: VectorValue([2, 3]))
        try expectRoundTrip(
            withOptional,
            [
                "name": "fig", "embedding": .vector([1]), "scores": [],
                "maybe": .map(["__type__": "__vector__", "value": [2.0, 3.0]]),
            ])
    }

    @Test func decodingSaysWhatTheFieldHoldsInsteadOfAVector() throws {
        let decoder = FirestoreDecoder()
        let asArray = thrownError {
            try decoder.decode(Item.self, from: ["name": "a", "embedding": [1.0], "scores": []])
        }
        #expect(codingMessage(try #require(asArray)) == "embedding: expected a vector, found arrayValue")
        #expect(codingPath(try #require(asArray)) == ["embedding"])
        let broken = thrownError {
            try decoder.decode(
                Item.self, from: ["name": "a", "embedding": ["__type__": "__vector__", "value": ["x"]], "scores": []])
        }
        #expect(codingMessage(try #require(broken)) == "embedding: vector element 0 is stringValue, not a number")
        // A vector field read as [Double] points at VectorValue.
        let intoArray = thrownError {
            try decoder.decode(Item.self, from: ["name": "a", "embedding": .vector([1]), "scores": .vector([1])])
        }
        #expect(
            codingMessage(try #require(intoArray))
                == "scores: expected an array, found a vector (decode it as VectorValue)")
    }

    /// Another coder sees `{"array": [...]}`, and the Firestore decoder reads that form too.
    @Test func otherCodersSeeAnArrayObject() throws {
        let data = try JSONEncoder().encode(VectorValue([0.5, 2]))
        #expect(String(decoding: data, as: UTF8.self) == #"{"array":[0.5,2]}"#)
        #expect(try JSONDecoder().decode(VectorValue.self, from: data) == VectorValue([0.5, 2]))
        #expect(try FirestoreDecoder().decode(VectorValue.self, from: ["array": [0.5, 2.0]]) == VectorValue([0.5, 2]))
    }
}
