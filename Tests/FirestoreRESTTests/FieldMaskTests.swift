import Foundation
import Testing

@testable import FirestoreREST

@Suite("FieldMask", .timeLimit(.minutes(2)))
struct FieldMaskTests {
    @Test func leafPathsAreSortedByQuotedForm() {
        let data: [String: FirestoreValue] = [
            "b": .integer(1),
            "a": .map(["y": .map(["z": .boolean(true)]), "x": .integer(1)]),
            "e": .map([:]),
            "1x": .integer(2),
            "arr": .array([.integer(1), .map([:])]),
        ]
        let paths = FieldMask.leafPaths(of: data)
        #expect(paths.map(\.segments) == [["1x"], ["a", "x"], ["a", "y", "z"], ["arr"], ["b"], ["e"]])
        #expect(paths.map(\.description) == ["`1x`", "a.x", "a.y.z", "arr", "b", "e"])
    }

    @Test func leafPathsOfLiteralDotName() {
        let paths = FieldMask.leafPaths(of: ["a.b": .integer(1), "a": .map(["b": .integer(2)])])
        #expect(paths.map(\.segments) == [["a.b"], ["a", "b"]])
        #expect(paths.map(\.description) == ["`a.b`", "a.b"])
    }

    @Test func leafPathsOfEmptyData() {
        #expect(FieldMask.leafPaths(of: [:]) == [])
    }

    @Test func nestBuildsMapsAndMask() throws {
        let (fields, mask) = try FieldMask.nest([
            try fieldPath("a", "b"): .integer(1),
            try fieldPath("a", "c", "d"): .integer(2),
            try fieldPath("e"): .string("x"),
        ])
        #expect(fields == ["a": .map(["b": .integer(1), "c": .map(["d": .integer(2)])]), "e": .string("x")])
        #expect(mask.map(\.description) == ["a.b", "a.c.d", "e"])
    }

    /// Field case D-24 through `nest`: the mask carries the quoted paths.
    @Test func nestFieldCaseD24() throws {
        let (fields, mask) = try FieldMask.nest([
            try fieldPath("123abc"): .integer(1),
            try fieldPath("spam-eggs"): .integer(2),
            try fieldPath("a.b"): .integer(3),
            try fieldPath("profile", "age"): .integer(4),
        ])
        #expect(
            fields == [
                "123abc": .integer(1), "spam-eggs": .integer(2), "a.b": .integer(3),
                "profile": .map(["age": .integer(4)]),
            ])
        #expect(mask.map(\.description) == ["`123abc`", "`a.b`", "`spam-eggs`", "profile.age"])
    }

    @Test func literalDotAndNestedPathDoNotConflict() throws {
        let (fields, mask) = try FieldMask.nest([
            try fieldPath("a.b"): .integer(1),
            try fieldPath("a", "b"): .integer(2),
        ])
        #expect(fields == ["a.b": .integer(1), "a": .map(["b": .integer(2)])])
        #expect(mask.map(\.segments) == [["a.b"], ["a", "b"]])
    }

    @Test func siblingWithCommonPrefixIsNoConflict() throws {
        let (fields, _) = try FieldMask.nest([try fieldPath("a"): .integer(1), try fieldPath("ab"): .integer(2)])
        #expect(fields == ["a": .integer(1), "ab": .integer(2)])
    }

    @Test(arguments: [
        [["a"], ["a", "b"]],
        [["a", "b"], ["a", "b", "c"]],
        [["x"], ["a"], ["a", "b", "c"]],
        [["a", "b"], ["a", "c"], ["a"]],
    ])
    func prefixConflictThrows(paths: [[String]]) throws {
        var values: [FieldPath: FirestoreValue] = [:]
        for (position, segments) in paths.enumerated() {
            values[try FieldPath(segments)] = .integer(Int64(position))
        }
        let error = #expect(throws: FirestoreError.self) { try FieldMask.nest(values) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func prefixConflictMessageNamesBothPaths() throws {
        let error = #expect(throws: FirestoreError.self) {
            try FieldMask.nest([try fieldPath("a"): .integer(1), try fieldPath("a", "b"): .integer(2)])
        }
        #expect(error?.message.contains("field path a is a prefix of a.b") == true, "\(error?.message ?? "nil")")
    }

    @Test func emptyNestThrows() {
        let error = #expect(throws: FirestoreError.self) { try FieldMask.nest([:]) }
        #expect(error?.code == .invalidArgument)
    }
}

@Suite("Write REST", .timeLimit(.minutes(2)))
struct WriteRESTTests {
    private let database: DatabaseID

    init() throws {
        database = try DatabaseID(projectID: "p")
    }

    /// Field case D-24: the update mask in the commit body.
    @Test func updateWithQuotedMask() throws {
        let write = Write.update(
            path: try ResourcePath("users/u1"),
            fields: [
                "123abc": .integer(1), "spam-eggs": .integer(2), "a.b": .integer(3),
                "profile": .map(["age": .integer(4)]),
            ],
            mask: [
                try fieldPath("123abc"), try fieldPath("spam-eggs"), try fieldPath("a.b"),
                try fieldPath("profile", "age"),
            ],
            precondition: .exists(true))
        let expected = try json(
            #"""
            {"update":{"name":"projects/p/databases/(default)/documents/users/u1","fields":{"123abc":{"integerValue":"1"},"spam-eggs":{"integerValue":"2"},"a.b":{"integerValue":"3"},"profile":{"mapValue":{"fields":{"age":{"integerValue":"4"}}}}}},
             "updateMask":{"fieldPaths":["`123abc`","`spam-eggs`","`a.b`","profile.age"]},
             "currentDocument":{"exists":true}}
            """#)
        #expect(write.restJSON(database: database) == expected)
    }

    @Test func setWithoutMask() throws {
        let write = Write.update(path: try ResourcePath("c/d"), fields: [:], mask: nil, precondition: nil)
        #expect(
            write.restJSON(database: database)
                == (try json(#"{"update":{"name":"projects/p/databases/(default)/documents/c/d","fields":{}}}"#)))
    }

    @Test func emptyMaskIsWritten() throws {
        let write = Write.update(path: try ResourcePath("c/d"), fields: [:], mask: [], precondition: .exists(false))
        #expect(
            write.restJSON(database: database)
                == (try json(
                    #"{"update":{"name":"projects/p/databases/(default)/documents/c/d","fields":{}},"updateMask":{"fieldPaths":[]},"currentDocument":{"exists":false}}"#
                )))
    }

    @Test func deleteWithUpdateTimePrecondition() throws {
        let write = Write.delete(
            path: try ResourcePath("c/d"), precondition: .updateTime(ts(1_795_954_769, 173_424_000)))
        #expect(
            write.restJSON(database: database)
                == (try json(
                    #"{"delete":"projects/p/databases/(default)/documents/c/d","currentDocument":{"updateTime":"2026-11-29T12:19:29.173424Z"}}"#
                )))
    }

    @Test func deleteWithoutPrecondition() throws {
        let write = Write.delete(path: try ResourcePath("c/d"), precondition: nil)
        #expect(
            write.restJSON(database: database)
                == (try json(#"{"delete":"projects/p/databases/(default)/documents/c/d"}"#)))
    }
}
