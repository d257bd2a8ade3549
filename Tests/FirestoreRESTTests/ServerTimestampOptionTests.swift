import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// `Firestore.settingServerTimestamp(on:)`: every write the client makes (set, set with merge, update, create, a
/// batch, a transaction) carries `REQUEST_TIME` on the field, replacing the write's own value; deletes are
/// untouched; a write that cannot also carry it is refused before sending.
@Suite(.timeLimit(.minutes(2))) struct ServerTimestampOptionTests {
    static let name = "projects/p/databases/(default)/documents/c/a"

    /// A commit response with one result (the strict decoding of issue 16 wants one per write).
    static let committed: JSONValue = [
        "writeResults": [["updateTime": "2024-01-01T00:00:01Z"]], "commitTime": "2024-01-01T00:00:01Z",
    ]

    static func client() throws -> (ScriptedTransport, Firestore) {
        let transport = ScriptedTransport { request, _ in
            if request.url.hasSuffix(":beginTransaction") { return .ok(["transaction": "VDE="]) }
            return .ok(Self.committed)
        }
        return (transport, try transport.firestore().settingServerTimestamp(on: "updatedAt"))
    }

    @Test func everyKindOfWriteCarriesTheTimestamp() async throws {
        let (transport, db) = try Self.client()
        let document = db.document("c/a")
        try await document.setData(["n": 1])
        try await document.setData(["n": 2], merge: true)
        try await document.updateData(["n": 3])
        try await document.create(["n": 4])
        try await document.delete()
        let batch = db.batch()
        try batch.setData(["n": 5], forDocument: document)
        try await batch.commit()
        _ = try await db.runTransaction { transaction in
            try transaction.updateData(["n": 6], forDocument: document)
        }
        let writes = transport.bodies.compactMap { $0["writes"]?.arrayValue?.first }
        let stamp: JSONValue = [["fieldPath": "updatedAt", "setToServerValue": "REQUEST_TIME"]]
        #expect(writes.count == 7)
        #expect(writes.map { $0["updateTransforms"] } == [stamp, stamp, stamp, stamp, nil, stamp, stamp])
        #expect(writes[1]["updateMask"] == ["fieldPaths": ["n"]])
        #expect(writes[4] == ["delete": .string(Self.name)])
    }

    @Test func theWritesOwnValueIsReplaced() async throws {
        let (transport, db) = try Self.client()
        try await db.document("c/a").setData(["n": 1, "updatedAt": "yesterday"])
        try await db.document("c/a").updateData(["updatedAt": .delete(), "m": 2])
        try await db.document("c/a").updateData(["updatedAt": .serverTimestamp()])
        let expected = try json(
            #"""
            [{"update":{"name":"projects/p/databases/(default)/documents/c/a","fields":{"n":{"integerValue":"1"}}},
              "updateTransforms":[{"fieldPath":"updatedAt","setToServerValue":"REQUEST_TIME"}]},
             {"update":{"name":"projects/p/databases/(default)/documents/c/a","fields":{"m":{"integerValue":"2"}}},
              "updateMask":{"fieldPaths":["m"]},"currentDocument":{"exists":true},
              "updateTransforms":[{"fieldPath":"updatedAt","setToServerValue":"REQUEST_TIME"}]},
             {"update":{"name":"projects/p/databases/(default)/documents/c/a","fields":{}},
              "updateMask":{"fieldPaths":[]},"currentDocument":{"exists":true},
              "updateTransforms":[{"fieldPath":"updatedAt","setToServerValue":"REQUEST_TIME"}]}]
            """#)
        #expect(JSONValue.array(transport.bodies.compactMap { $0["writes"]?.arrayValue?.first }) == expected)
    }

    @Test func aNestedFieldIsTakenOutOfItsMap() throws {
        let field = try FieldPath(quoted: "meta.updatedAt")
        let write = try Write.update(
            path: ResourcePath("c/a"), fields: ["meta": .map(["updatedAt": 1, "by": "me"])], mask: nil,
            precondition: nil
        ).settingServerTime(on: field)
        #expect(
            write
                == .update(
                    path: try ResourcePath("c/a"), fields: ["meta": .map(["by": "me"])], mask: nil, precondition: nil,
                    transforms: [FieldTransform(fieldPath: field, operation: .setToServerTime)]))
    }

    @Test func aWriteThatCannotAlsoCarryTheTimestampIsRefusedBeforeSending() async throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        let db = try transport.firestore().settingServerTimestamp(on: "meta.updatedAt")
        let overlapping = await #expect(throws: FirestoreError.self) {
            try await db.document("c/a").updateData(["meta": .arrayUnion([1])])
        }
        #expect(overlapping?.code == .invalidArgument)
        #expect(overlapping?.message.contains("c/a: the write transforms meta, which overlaps meta.updatedAt") == true)
        let scalar = await #expect(throws: FirestoreError.self) { try await db.document("c/a").setData(["meta": 3]) }
        #expect(scalar?.message.contains("sets meta to integerValue, not a map") == true)
        #expect(transport.requests.isEmpty)
    }

    @Test(arguments: ["", "a..b", "__name__", "`unterminated"])
    func anInvalidFieldIsRefused(field: String) throws {
        let transport = ScriptedTransport { _, _ in .ok([:]) }
        let error = #expect(throws: FirestoreError.self) { try transport.firestore().settingServerTimestamp(on: field) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func theOriginalClientIsUnchanged() async throws {
        let transport = ScriptedTransport { _, _ in .ok(Self.committed) }
        let plain = try transport.firestore()
        let stamping = try plain.settingServerTimestamp(on: "updatedAt")
        #expect(plain.serverTimestampField == nil)
        #expect(stamping.serverTimestampField == (try FieldPath(quoted: "updatedAt")))
        #expect(stamping.transport as? ScriptedTransport === transport)
        try await plain.document("c/a").setData(["n": 1])
        #expect(transport.bodies.first?["writes"]?.arrayValue?.first?["updateTransforms"] == nil)
    }
}
