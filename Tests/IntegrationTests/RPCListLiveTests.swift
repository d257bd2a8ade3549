import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The list, partition, batch-write and explain calls over gRPC against the real emulator, beside the same request
/// over REST on the same data.
@Suite("RPC list live", .timeLimit(.minutes(2)))
struct RPCListLiveTests {
    @Test func listsMatchREST() async throws {
        let rest = try LiveFirestore.make("rpc-list", .rest)
        let grpc = rest.using(protocol: .grpc)
        for id in ["a", "b", "c"] { try await rest.document("c/\(id)").setData(["n": .value(.string(id))]) }
        try await rest.document("c/ghost/sub/x").setData(["n": 1])
        try await rest.document("other/o").setData(["n": 1])
        let overGRPC = try await grpc.collection("c").listDocuments(pageSize: 2, showMissing: true)
        let overREST = try await rest.collection("c").listDocuments(pageSize: 2, showMissing: true)
        #expect(overGRPC.map(\.documentID) == ["a", "b", "c", "ghost"])
        #expect(overGRPC.map(\.exists) == [true, true, true, false])
        #expect(overGRPC.map { $0.data() } == overREST.map { $0.data() })
        #expect(overGRPC.map(\.updateTime) == overREST.map(\.updateTime))
        let page = try await grpc.collection("c").listDocuments(pageToken: nil, pageSize: 1, fieldMask: [])
        #expect(page.documents.map(\.documentID) == ["a"])
        #expect(page.documents.first?.data() == [:])
        #expect(page.nextPageToken != nil)
        #expect(try await grpc.listCollectionIds(pageSize: 1) == ["c", "other"])
        #expect(try await grpc.document("c/ghost").listCollectionIds() == ["sub"])
        #expect(try await grpc.listCollectionIds() == (try await rest.listCollectionIds()))
    }

    @Test func batchWriteAppliesEachWriteOnItsOwnAsREST() async throws {
        let rest = try LiveFirestore.make("rpc-batchwrite", .rest)
        let grpc = rest.using(protocol: .grpc)
        try await rest.document("c/there").setData(["n": 1])
        let response = try await grpc.batchWrite([
            .update(
                path: try ResourcePath("c/new"), fields: ["n": .integer(2)], mask: nil, precondition: nil,
                transforms: []),
            .update(
                path: try ResourcePath("c/missing"), fields: ["n": .integer(3)], mask: nil,
                precondition: .exists(true), transforms: []),
            .delete(path: try ResourcePath("c/there"), precondition: nil),
        ])
        #expect(response.outcomes.count == 3)
        let written = try response.outcomes[0].get()
        #expect(written.updateTime == (try await rest.document("c/new").getDocument().updateTime))
        guard case .failure(let failure) = response.outcomes[1] else {
            Issue.record("the update of a missing document succeeded")
            return
        }
        #expect(failure.code == .notFound)
        #expect(
            try response.outcomes[2].get()
                == WriteResult(updateTime: nil, writeTime: BatchWriteResponse.deleteWriteTime))
        #expect(try await rest.document("c/there").getDocument().exists == false)
        #expect(try await rest.document("c/missing").getDocument().exists == false)
    }

    /// The emulator implements PartitionQuery on neither wire: `grpc-status` 12 over gRPC, HTTP 501 over REST. An
    /// `.automatic` client tries both, gets REST's error and keeps gRPC for its other calls.
    @Test func partitionQueryIsUnimplementedOnBothWiresAndAutomaticKeepsGRPC() async throws {
        let automatic = try LiveFirestore.make("rpc-partition")
        for id in ["a", "b"] { try await automatic.document("g/\(id)").setData(["n": 1]) }
        let overGRPC = try await #require(throws: FirestoreError.self) {
            _ = try await automatic.using(protocol: .grpc).collectionGroup("g").getPartitions(desiredPartitionCount: 2)
        }
        #expect(overGRPC.code == .unimplemented)
        #expect(overGRPC.isServerStatus)
        #expect(overGRPC.httpStatus == nil)
        let overREST = try await #require(throws: FirestoreError.self) {
            _ = try await automatic.using(protocol: .rest).collectionGroup("g").getPartitions(desiredPartitionCount: 2)
        }
        #expect(overREST.code == .unimplemented)
        #expect(overREST.httpStatus == 501)
        let routed = try await #require(throws: FirestoreError.self) {
            _ = try await automatic.collectionGroup("g").getPartitions(desiredPartitionCount: 2)
        }
        #expect(routed.code == .unimplemented)
        #expect(routed.httpStatus == 501)
        #expect(automatic.rpcState.triesGRPC())
        #expect(try await automatic.collectionGroup("g").getPartitions(desiredPartitionCount: 1).count == 1)
    }
}
