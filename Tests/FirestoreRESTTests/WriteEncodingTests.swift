import Foundation
import Testing

@testable import FirestoreREST

/// ``FieldValue`` and the write encoding beyond what the conformance files cover: the literal ergonomics, the
/// numeric sentinels (increment, maximum, minimum), nested arrays, reserved names, dotted merge fields.
@Suite(.timeLimit(.minutes(2))) struct WriteEncodingTests {
    private let database: DatabaseID
    private let path: ResourcePath

    init() throws {
        database = try DatabaseID(projectID: "p")
        path = try ResourcePath("fruits/apple")
    }

    private func encoded(_ write: Write) -> JSONValue { write.restJSON(database: database) }

    @Test func literalsAndSentinelsTypeCheckTogether() throws {
        let data: [String: FieldValue] = [
            "name": "Apple", "count": 3, "ratio": 0.5, "ok": true, "none": nil, "tags": ["red", "sweet"],
            "stats": ["kcal": 52], "updated": .serverTimestamp(), "views": FieldValue.increment(Int64(1)),
            "gone": FieldValue.delete(),
        ]
        #expect(data["stats"] == .map(["kcal": .value(.integer(52))]))
        #expect(data["tags"] == .array([.value(.string("red")), .value(.string("sweet"))]))
        #expect(data["none"] == .value(.null))
        #expect(data["updated"] == .serverTimestamp)
        #expect(data["views"] == .increment(.integer(1)))
        #expect(data["gone"] == .delete)
        #expect(FieldValue.arrayUnion(["a", 1]) == .arrayUnion([.value(.string("a")), .value(.integer(1))]))
        #expect(FieldValue.increment(2.5) == .increment(.double(2.5)))
        #expect(FieldValue.increment(2) == .increment(.integer(2)))
    }

    @Test func plainDataConverts() {
        let plain: [String: FirestoreValue] = ["a": 1, "m": ["b": "c"]]
        #expect([String: FieldValue](plain) == ["a": .value(.integer(1)), "m": .value(.map(["b": "c"]))])
    }

    @Test func plainValueAndDescription() {
        let value: FieldValue = ["a": [1, ["b": true]]]
        #expect(value.plainValue == .map(["a": .array([.integer(1), .map(["b": .boolean(true)])])]))
        #expect(FieldValue.map(["t": .serverTimestamp]).plainValue == nil)
        #expect(FieldValue.increment(.integer(3)).description == "FieldValue.increment(3)")
        #expect(FieldValue.arrayRemove(["x"]).description == #"FieldValue.arrayRemove(["x"])"#)
        #expect(FieldValue.map(["b": 1, "a": .delete]).description == #"{"a": FieldValue.delete(),"b": 1}"#)
    }

    @Test func numericTransformsAreEncodedInPathOrder() throws {
        let write = try WriteEncoder.update(
            [
                (try fieldPath("n"), .increment(Int64(2))), (try fieldPath("d"), .increment(-0.5)),
                (try fieldPath("hi"), .maximum(Int64(10))), (try fieldPath("lo"), .minimum(1.5)),
                (try fieldPath("s", "t"), .serverTimestamp()), (try fieldPath("keep"), "x"),
            ], at: path, precondition: nil)
        let expected = try json(
            #"""
            {"update":{"name":"projects/p/databases/(default)/documents/fruits/apple","fields":{"keep":{"stringValue":"x"}}},
             "updateMask":{"fieldPaths":["keep"]},
             "currentDocument":{"exists":true},
             "updateTransforms":[
               {"fieldPath":"d","increment":{"doubleValue":-0.5}},
               {"fieldPath":"hi","maximum":{"integerValue":"10"}},
               {"fieldPath":"lo","minimum":{"doubleValue":1.5}},
               {"fieldPath":"n","increment":{"integerValue":"2"}},
               {"fieldPath":"s.t","setToServerValue":"REQUEST_TIME"}]}
            """#)
        #expect(encoded(write) == expected)
    }

    @Test(arguments: [
        FieldValue.increment(.string("1")), .maximum(.null), .minimum(.array([])),
    ])
    func nonNumericOperandIsRefused(_ sentinel: FieldValue) {
        let error = #expect(throws: FirestoreError.self) {
            try WriteEncoder.set(["n": sentinel], at: path, merge: .overwrite)
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("at n needs an integer or double operand") == true, "\(error?.message ?? "")")
    }

    @Test(arguments: [
        ["a": [[1]]] as [String: FieldValue],
        ["a": .value(.array([.array([])]))] as [String: FieldValue],
        ["a": ["m": [1, [2]]]] as [String: FieldValue],
        ["a": .arrayUnion([[1]])] as [String: FieldValue],
    ])
    func arrayDirectlyInsideArrayIsRefused(_ data: [String: FieldValue]) {
        let error = #expect(throws: FirestoreError.self) { try WriteEncoder.set(data, at: path, merge: .overwrite) }
        #expect(error?.message.contains("an array cannot directly hold an array") == true, "\(error?.message ?? "")")
    }

    @Test func arrayInsideMapInsideArrayIsFine() throws {
        let write = try WriteEncoder.set(["a": [["m": [1, 2]]]], at: path, merge: .overwrite)
        guard case .update(_, let fields, _, _, _) = write else {
            throw FirestoreError.invalidArgument("not an update")
        }
        #expect(fields == ["a": .array([.map(["m": .array([1, 2])])])])
    }

    @Test(arguments: [
        (["__x__": 1] as [String: FieldValue], "field name \"__x__\" is reserved"),
        (["m": ["__id__": 1]] as [String: FieldValue], "field name \"__id__\" is reserved"),
        (["m": .value(.map(["": 1]))] as [String: FieldValue], "a field name cannot be empty (field m.``)"),
        (["": 1] as [String: FieldValue], "a field name cannot be empty"),
    ])
    func emptyAndReservedNamesAreRefused(_ data: [String: FieldValue], _ message: String) {
        let error = #expect(throws: FirestoreError.self) { try WriteEncoder.set(data, at: path, merge: .mergeAll) }
        #expect(error?.message.contains(message) == true, "\(error?.message ?? "")")
    }

    @Test func reservedNameInAnUpdatePathIsRefused() throws {
        let error = #expect(throws: FirestoreError.self) {
            try WriteEncoder.update([(try fieldPath("a", "__name__"), 1)], at: path, precondition: nil)
        }
        #expect(error?.message.contains("is reserved") == true)
    }

    /// A vector value is the map `{"__type__":"__vector__","value":[...]}` (Firestore docs, "Vector search"):
    /// its reserved `__type__` may be written (what `import` of an exported vector does); any other map with a
    /// reserved name, or a vector whose value is no array, is refused.
    @Test func aVectorMapMayHoldItsReservedType() throws {
        let vector: FirestoreValue = ["__type__": "__vector__", "value": [1.0, 2.5]]
        let write = try WriteEncoder.set([String: FieldValue](["embedding": vector]), at: path, merge: .overwrite)
        guard case .update(_, let fields, _, _, _) = write else {
            throw FirestoreError.invalidArgument("not an update")
        }
        #expect(fields == ["embedding": vector])
        let other: FirestoreValue = ["__type__": "__other__", "value": [1.0]]
        let refused = #expect(throws: FirestoreError.self) {
            try WriteEncoder.set([String: FieldValue](["m": other]), at: path, merge: .overwrite)
        }
        #expect(refused?.message == "field name \"__type__\" is reserved: names matching __.*__ cannot be written")
        let noArray: FirestoreValue = ["__type__": "__vector__", "value": 1.0]
        let malformed = #expect(throws: FirestoreError.self) {
            try WriteEncoder.set([String: FieldValue](["v": noArray]), at: path, merge: .overwrite)
        }
        #expect(malformed?.message == "a vector value's \"value\" must be an array of numbers (field v)")
    }

    @Test func namesThatOnlyLookReservedAreFine() throws {
        _ = try WriteEncoder.set(["__": 1, "_a_": 2, "__a": 3, "a__": 4], at: path, merge: .overwrite)
    }

    @Test func dottedMergeFields() throws {
        let paths = try WriteEncoder.dottedPaths(["stats.kcal", "name"])
        let write = try WriteEncoder.set(
            ["name": "Apple", "stats": ["kcal": 52, "g": 100], "color": "red"], at: path, merge: .mergeFields(paths))
        let expected = try json(
            #"""
            {"update":{"name":"projects/p/databases/(default)/documents/fruits/apple",
                       "fields":{"name":{"stringValue":"Apple"},"stats":{"mapValue":{"fields":{"kcal":{"integerValue":"52"}}}}}},
             "updateMask":{"fieldPaths":["name","stats.kcal"]}}
            """#)
        #expect(encoded(write) == expected)
        #expect(throws: FirestoreError.self) { try WriteEncoder.dottedPaths(["a[0]"]) }
        #expect(throws: FirestoreError.self) { try WriteEncoder.dottedPaths(["a."]) }
    }

    @Test func updatePreconditionReplacesExistsTrue() throws {
        let time = ts(42)
        let write = try WriteEncoder.update([(try fieldPath("a"), 1)], at: path, precondition: .updateTime(time))
        #expect(encoded(write)["currentDocument"] == ["updateTime": "1970-01-01T00:00:42Z"])
    }

    /// `fields` is left out only when the mask names paths and nothing is written (`update-del-alone`).
    @Test func fieldsPresenceRule() throws {
        let onlyDelete = Write.update(path: path, fields: [:], mask: [try fieldPath("a")], precondition: nil)
        #expect(encoded(onlyDelete)["update"] == ["name": "projects/p/databases/(default)/documents/fruits/apple"])
        let emptyMask = Write.update(path: path, fields: [:], mask: [], precondition: nil)
        #expect(encoded(emptyMask)["update"]?["fields"] == .object([:]))
        let noMask = Write.update(path: path, fields: [:], mask: nil, precondition: nil)
        #expect(encoded(noMask)["update"]?["fields"] == .object([:]))
    }

    @Test func transactionModeJSON() {
        #expect(TransactionMode.readWrite().restJSON == ["readWrite": .object([:])])
        #expect(TransactionMode.readWrite(retrying: "abc=").restJSON == ["readWrite": ["retryTransaction": "abc="]])
        #expect(TransactionMode.readOnly().restJSON == ["readOnly": .object([:])])
        #expect(
            TransactionMode.readOnly(readTime: ts(42)).restJSON
                == ["readOnly": ["readTime": "1970-01-01T00:00:42Z"]])
    }
}
