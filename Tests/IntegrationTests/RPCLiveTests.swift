import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// Every method the client sends over gRPC (`FirestoreProtocol.grpc`), against the real emulator, compared with the
/// same request over REST on the same data: the same request must mean the same thing on both wires.
@Suite("RPC live", .timeLimit(.minutes(2)))
struct RPCLiveTests {
    /// A REST client and a gRPC client of one fresh project.
    private func clients(_ label: String) throws -> (rest: Firestore, grpc: Firestore) {
        let rest = try LiveFirestore.make(label).using(protocol: .rest)
        return (rest, rest.using(protocol: .grpc))
    }

    @Test func runQueryReturnsTheSameDocumentsInFewerBytes() async throws {
        let (rest, grpc) = try clients("rpc-query")
        for (id, name, kcal) in [("a", "Apple", 52), ("b", "Banana", 89), ("c", "Cherry", 50)] {
            try await rest.document("fruits/\(id)").setData([
                "name": .value(.string(name)), "kcal": .value(.integer(Int64(kcal))),
            ])
        }
        let query = rest.collection("fruits").whereField("kcal", isLessThan: 60).order(by: "name", descending: true)
        let overREST = try await query.runQuery()
        let overGRPC = try await grpc.collection("fruits").whereField("kcal", isLessThan: 60)
            .order(by: "name", descending: true).runQuery()
        #expect(
            overGRPC.documents.map(\.name) == [
                rest.database.resourceName(of: try ResourcePath("fruits/c")),
                rest.database.resourceName(of: try ResourcePath("fruits/a")),
            ])
        #expect(overGRPC.documents == overREST.documents)
        #expect(overGRPC.documents.first?.fields["kcal"] == .integer(50))
        #expect(overGRPC.readTime != nil)
        #expect(overGRPC.responseBytes > 0)
        #expect(overGRPC.responseBytes * 2 < overREST.responseBytes)
    }

    @Test func getDocumentReadsAndMissesAsREST() async throws {
        let (rest, grpc) = try clients("rpc-get")
        try await rest.document("c/d").setData(["n": 1, "m": ["s": "x"]])
        let overGRPC = try await grpc.document("c/d").getDocument()
        let overREST = try await rest.document("c/d").getDocument()
        #expect(overGRPC.data() == ["n": .integer(1), "m": .map(["s": .string("x")])])
        #expect(overGRPC.data() == overREST.data())
        #expect(overGRPC.updateTime == overREST.updateTime)
        #expect(overGRPC.createTime == overREST.createTime)
        #expect(try await grpc.document("c/missing").getDocument().exists == false)
    }

    @Test func emptyResultAndOffsetCarryReadTimeAndSkippedResults() async throws {
        let (rest, grpc) = try clients("rpc-offset")
        for id in ["a", "b", "c"] { try await rest.document("c/\(id)").setData(["n": 1]) }
        let empty = try await grpc.collection("nothing").runQuery()
        #expect(empty.documents.isEmpty)
        #expect(empty.readTime != nil)
        let skipped = try await grpc.collection("c").order(by: "__name__").offset(2).runQuery()
        #expect(skipped.documents.map { $0.name.split(separator: "/").last.map(String.init) } == ["c"])
        let skippedOverREST = try await rest.collection("c").order(by: "__name__").offset(2).runQuery()
        #expect(skipped.skippedResults == skippedOverREST.skippedResults)
    }

    @Test func batchGetFindsAndMissesAsREST() async throws {
        let (rest, grpc) = try clients("rpc-batch")
        try await rest.document("c/here").setData(["n": 7, "s": "x"])
        let here = rest.database.resourceName(of: try ResourcePath("c/here"))
        let gone = rest.database.resourceName(of: try ResourcePath("c/gone"))
        let overGRPC = try await grpc.batchGet(names: [here, gone], mask: [FieldPath(["n"])])
        let overREST = try await rest.batchGet(names: [here, gone], mask: [FieldPath(["n"])])
        #expect(overGRPC.found == overREST.found)
        #expect(overGRPC.found[ByteExactName(name: here)]?.fields == ["n": .integer(7)])
        #expect(overGRPC.missing == [gone])
        #expect(overGRPC.readTime != nil)
    }

    @Test func aggregationsAndCountMatchREST() async throws {
        let (rest, grpc) = try clients("rpc-aggregate")
        for (id, kcal) in [("a", 52), ("b", 89), ("c", 50)] {
            try await rest.document("fruits/\(id)").setData(["kcal": .value(.integer(Int64(kcal)))])
        }
        let aggregations: [AggregateField] = [.count(), .sum("kcal", alias: "total"), .average("kcal", alias: "mean")]
        let overGRPC = try await grpc.collection("fruits").aggregate(aggregations).getAggregation()
        #expect(overGRPC.count == 3)
        #expect(overGRPC.get("total") == .integer(191))
        #expect(overGRPC.get("mean")?.doubleValue == 191.0 / 3.0)
        let overREST = try await rest.collection("fruits").aggregate(aggregations).getAggregation()
        #expect(overGRPC.data() == overREST.data())
        let counted = try await grpc.runCount(
            parent: .root, structuredQuery: try grpc.collection("fruits").query.structured(), readTime: nil)
        #expect(counted.count == 3)
        #expect(counted.readTime != nil)
    }

    @Test func writesWithTransformsReadBackTheSameOverREST() async throws {
        let (rest, grpc) = try clients("rpc-write")
        let reference = grpc.document("c/d")
        try await reference.setData(["n": 1, "tags": .array([.value(.string("a"))]), "m": ["x": 1]])
        let result = try await reference.updateData([
            "n": .increment(Int64(2)), "at": .serverTimestamp(), "tags": .arrayUnion([.value(.string("b"))]),
            "m.x": .delete(),
        ])
        let read = try await rest.document("c/d").getDocument()
        #expect(read.data()?["n"] == .integer(3))
        #expect(read.data()?["tags"] == .array([.string("a"), .string("b")]))
        #expect(read.data()?["m"] == .map([:]))
        guard case .timestamp(let at)? = read.data()?["at"] else {
            Issue.record("no server timestamp: \(String(describing: read.data()))")
            return
        }
        #expect(result.updateTime == read.updateTime)
        #expect(result.transformResults.contains(.integer(3)))
        #expect(result.transformResults.count == 3)
        #expect(at <= result.writeTime)
        _ = try await grpc.document("c/d").delete()
        #expect(try await rest.document("c/d").getDocument().exists == false)
    }

    @Test func serverErrorsKeepTheirCodeAndMessageOnBothWires() async throws {
        let (rest, grpc) = try clients("rpc-errors")
        try await rest.document("c/d").setData(["n": 1])
        var outcomes: [String: FirestoreError] = [:]
        for (label, db) in [("rest", rest), ("grpc", grpc)] {
            outcomes[label] = try await #require(throws: FirestoreError.self) {
                _ = try await db.document("c/d").create(["n": 2])
            }
            let missing = try await #require(throws: FirestoreError.self) {
                _ = try await db.document("c/missing").updateData(["n": 2])
            }
            #expect(missing.code == .notFound)
            #expect(missing.isServerStatus)
        }
        #expect(outcomes["grpc"]?.code == .alreadyExists)
        #expect(outcomes["grpc"]?.message == outcomes["rest"]?.message)
        #expect(outcomes["grpc"]?.isServerStatus == true)
    }

    @Test func transactionsBeginReadCommitAndRollBackOverGRPC() async throws {
        let (rest, grpc) = try clients("rpc-transaction")
        try await rest.document("c/counter").setData(["n": 10])
        let seen = try await grpc.runTransaction { transaction in
            let snapshot = try await transaction.getDocument(grpc.document("c/counter"))
            let n = snapshot.data()?["n"]
            try transaction.updateData(["n": .increment(Int64(5))], forDocument: grpc.document("c/counter"))
            return n
        }
        #expect(seen == .integer(10))
        #expect(try await rest.document("c/counter").getDocument().data()?["n"] == .integer(15))
        let id = try await grpc.beginTransaction(.readWrite())
        #expect(try RPCTransactionID.bytes(id).isEmpty == false)
        try await grpc.rollback(transaction: id)
        let readOnly = try await grpc.beginTransaction(.readOnly())
        let inside = try await grpc.collection("c").runQuery(readTime: nil, transaction: readOnly, newTransaction: nil)
        #expect(inside.documents.count == 1)
    }
}
