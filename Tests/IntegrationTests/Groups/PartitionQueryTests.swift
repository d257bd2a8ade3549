import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `Query.getPartitions` against a scripted server answering as the REST reference shows
/// (`PartitionQueryResponse`: `partitions` of `Cursor`s, `nextPageToken`), and against the emulator, which answers
/// 501; a feed group on a collection group then splits by a keys scan.
@Suite(.timeLimit(.minutes(2))) struct PartitionQueryTests {
    static let root = "projects/p/databases/(default)/documents"

    static func page(_ names: [String], token: String?) -> ScriptedHTTPServer.Answer {
        let partitions = names.map { #"{"values":[{"referenceValue":"\#(root)/\#($0)"}]}"# }
        let next = token.map { #","nextPageToken":"\#($0)""# } ?? ""
        return ScriptedHTTPServer.Answer(chunks: [
            #"{"partitions":["# + partitions.joined(separator: ",") + "]" + next + "}"
        ])
    }

    @Test func pointsFromEveryPageAreSortedWithoutRepeatsIntoParts() async throws {
        let answers = [
            Self.page(["a/x/orders/o20", "orders/o10"], token: "t1"),
            Self.page(["orders/o10", "orders/o30"], token: nil),
        ]
        try await ScriptedHTTPServer.with(answers) { server in
            let db = try server.firestore()
            let parts = try await db.collectionGroup("orders").getPartitions(desiredPartitionCount: 4)
            let bounds = parts.map { part in
                [part.startAt, part.endBefore].map { values -> String in
                    guard case .reference(let name)? = values?.first else { return "-" }
                    return String(name.dropFirst(Self.root.count + 1))
                }
            }
            // Names compare segment by segment: "a/x/orders/o20" sorts before "orders/...".
            #expect(
                bounds == [
                    ["-", "a/x/orders/o20"], ["a/x/orders/o20", "orders/o10"], ["orders/o10", "orders/o30"],
                    ["orders/o30", "-"],
                ])
            let received = try await server.received()
            #expect(received.map(\.path) == ["/v1/\(Self.root):partitionQuery", "/v1/\(Self.root):partitionQuery"])
            let first = try JSONValue.parse(Data(received[0].body.utf8))
            #expect(first["partitionCount"] == "3")
            #expect(first["pageToken"] == nil)
            #expect(
                first["structuredQuery"]
                    == [
                        "from": [["collectionId": "orders", "allDescendants": true]],
                        "orderBy": [["field": ["fieldPath": "__name__"], "direction": "ASCENDING"]],
                    ])
            #expect(try JSONValue.parse(Data(received[1].body.utf8))["pageToken"] == "t1")
        }
    }

    @Test func onlyACollectionGroupWithoutOrdersCanBePartitioned() async throws {
        let db = try Firestore.emulator(host: "127.0.0.1:1", projectID: "p")
        await #expect(throws: FirestoreError.self) {
            _ = try await db.collection("orders").query.getPartitions(desiredPartitionCount: 2)
        }
        await #expect(throws: FirestoreError.self) {
            _ = try await db.collectionGroup("orders").order(by: "n").getPartitions(desiredPartitionCount: 2)
        }
        await #expect(throws: FirestoreError.self) {
            _ = try await db.collectionGroup("orders").getPartitions(desiredPartitionCount: 0)
        }
        // One part needs no request: the whole result.
        let whole = try await db.collectionGroup("orders").getPartitions(desiredPartitionCount: 1)
        #expect(whole.count == 1)
        #expect(whole[0].startAt == nil && whole[0].endBefore == nil)
    }

    @Test func theEmulatorAnswers501AndAGroupSplitsByAKeysScan() async throws {
        let db = try LiveFirestore.make("partitions")
        let batch = db.batch()
        for index in 0..<8 {
            try batch.setData(
                ["n": .value(.integer(Int64(index)))],
                forDocument: db.collection(index < 4 ? "a" : "b").document("p\(index)").collection("orders").document(
                    "o\(index)"))
        }
        _ = try await batch.commit()
        do {
            _ = try await db.collectionGroup("orders").getPartitions(desiredPartitionCount: 2)
            Issue.record("the emulator answered PartitionQuery")
        } catch let error as FirestoreError {
            #expect(error.code == .unimplemented)
            #expect(error.httpStatus == 501)
        }
        let points = try await ShardRanges.splitPoints(of: db.collectionGroup("orders"), shards: 4)
        let root = db.database.resourceName(of: .root)
        #expect(
            points.map { String($0.dropFirst(root.count + 1)) } == [
                "a/p2/orders/o2", "b/p4/orders/o4", "b/p6/orders/o6",
            ])
    }
}
