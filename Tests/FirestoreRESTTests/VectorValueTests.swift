import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// ``VectorValue`` through ``FirestoreValue``, the REST `Value` JSON, plain JSON (the CLI's `data`) and writes.
@Suite(.timeLimit(.minutes(2))) struct VectorValueTests {
    /// The REST form of the vector `[0.5, -2.0]`, as the emulator stores and returns it.
    static let restText =
        #"{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"value":{"arrayValue":{"values":[{"doubleValue":0.5},{"doubleValue":-2.0}]}}}}}"#

    @Test func aVectorIsTheVectorMapOnTheWireAndBack() throws {
        let vector = VectorValue([0.5, -2])
        #expect(vector.firestoreValue.restJSON.serializedString() == Self.restText)
        let decoded = try decodeValue(Self.restText)
        #expect(decoded == .map(["__type__": "__vector__", "value": [0.5, -2.0]]))
        #expect(decoded.vectorValue == vector)
        #expect(try VectorValue(decoded).array == [0.5, -2])
        #expect(FirestoreValue.vector([0.5, -2]) == decoded)
        // A wire vector whose elements are integers reads as doubles.
        let integers = try decodeValue(
            #"{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"value":{"arrayValue":{"values":[{"integerValue":"3"}]}}}}}"#
        )
        #expect(integers.vectorValue == VectorValue([3]))
    }

    @Test func onlyTheVectorMapIsAVector() throws {
        #expect(FirestoreValue.array([1.0, 2.0]).vectorValue == nil)
        #expect(FirestoreValue.map(["value": [1.0]]).vectorValue == nil)
        #expect(FirestoreValue.map(["__type__": "__vector__", "value": ["x"]]).vectorValue == nil)
        let cases: [(FirestoreValue, String)] = [
            ([1.0, 2.0], #"expected a vector (a map with __type__ "__vector__"), found arrayValue"#),
            (
                ["__type__": "__vector__", "value": [1.0], "extra": true],
                "a vector map holds exactly __type__ and value, an array of numbers; found the fields __type__, extra, value"
            ),
            (
                ["__type__": "__vector__", "value": 1.0],
                "a vector map holds exactly __type__ and value, an array of numbers; found the fields __type__, value"
            ),
            (["__type__": "__vector__", "value": [1.0, "x"]], "vector element 1 is stringValue, not a number"),
            (
                ["__type__": "__vector__", "value": [.integer(9_007_199_254_740_993)]],
                "vector element 0: 9007199254740993 has no exact Double"
            ),
        ]
        for (value, message) in cases {
            #expect(throws: FirestoreError.invalidArgument(message)) { try VectorValue(value) }
        }
    }

    @Test func equalityAndHashingFollowFirestoreValue() {
        #expect(VectorValue([.nan, 1]) == VectorValue([.nan, 1]))
        #expect(VectorValue([-0.0]) == VectorValue([0.0]))
        #expect(Set([VectorValue([-0.0]), VectorValue([0.0]), VectorValue([.nan]), VectorValue([.nan])]).count == 2)
        #expect(VectorValue([1, 2]) != VectorValue([1, 2, 0]))
        #expect(VectorValue([1, 2]).description == "VectorValue([1.0, 2.0])")
    }

    /// The CLI's plain JSON prints a vector as its map with fractions on every element, and reads that back (or the
    /// same map written by hand with integers) as the vector; the map with anything else stays a map.
    @Test func plainJSONRoundTripsAVector() throws {
        let value = FirestoreValue.map(["embedding": .vector([1, 0.25, .nan]), "tags": ["a"]])
        let text = value.plainJSON.serializedString()
        #expect(text == #"{"embedding":{"__type__":"__vector__","value":[1.0,0.25,"NaN"]},"tags":["a"]}"#)
        #expect(FirestoreValue(plainJSON: try json(text)) == value)
        #expect(FirestoreValue(plainJSON: try json(#"{"__type__":"__vector__","value":[1,2]}"#)) == .vector([1, 2]))
        #expect(
            FirestoreValue(plainJSON: try json(#"{"__type__":"__vector__","value":[1,"x"]}"#))
                == .map(["__type__": "__vector__", "value": [1, "x"]]))
        #expect(
            FirestoreValue(plainJSON: try json(#"{"__type__":"__vector__","value":[1],"n":1}"#))
                == .map(["__type__": "__vector__", "value": [1], "n": 1]))
    }

    /// `FieldValue.vector(_:)` writes the vector map (its reserved `__type__` allowed there, nowhere else).
    @Test func fieldValueVectorWritesTheVectorMap() throws {
        let db = try offlineFirestore()
        let batch = db.batch()
        try batch.setData(
            ["e": .vector([1, 2]), "v": .value(VectorValue([3]).firestoreValue)], forDocument: db.document("c/d"))
        #expect(
            batch.writes[0].restJSON(database: db.database).serializedString()
                == #"{"update":{"fields":{"e":{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"value":{"arrayValue":{"values":[{"doubleValue":1.0},{"doubleValue":2.0}]}}}}},"v":{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"value":{"arrayValue":{"values":[{"doubleValue":3.0}]}}}}}},"name":"projects/p/databases/(default)/documents/c/d"}}"#
        )
        #expect(
            throws: FirestoreError.invalidArgument(
                #"field name "__type__" is reserved: names matching __.*__ cannot be written"#)
        ) {
            try db.batch().setData(["m": ["__type__": "x"]], forDocument: db.document("c/d"))
        }
    }
}
