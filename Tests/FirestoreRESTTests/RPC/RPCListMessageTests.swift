import Testing

@testable import FirestoreREST

/// The response decoders of the gRPC list, partition, batch-write and explain calls, on bytes written out field by
/// field from `google/firestore/v1/firestore.proto`, `query.proto`, `write.proto`, `query_profile.proto` and
/// `google/protobuf/struct.proto`.
@Suite("RPC list, partition, batch write and explain messages", .timeLimit(.minutes(1)))
struct RPCListMessageTests {
    static let root = "projects/p/databases/(default)/documents"

    /// `Document { name }` as field `number`.
    static func document(_ number: UInt8, _ name: String) -> [UInt8] {
        let bytes = Array(name.utf8)
        return [number << 3 | 2, UInt8(bytes.count + 2), 0x0A, UInt8(bytes.count)] + bytes
    }

    @Test func listDocumentsGivesDocumentsAndTheNextPageToken() throws {
        // documents { name: .../c/a }, documents { name: .../c/b }, next_page_token: "t"
        let message = Self.document(1, "\(Self.root)/c/a") + Self.document(1, "\(Self.root)/c/b") + [0x12, 0x01, 0x74]
        let page = try ListDocumentsRequest.decodeListDocumentsResponse(message)
        #expect(
            page.documents == [
                Document(name: "\(Self.root)/c/a", fields: [:]), Document(name: "\(Self.root)/c/b", fields: [:]),
            ])
        #expect(page.nextPageToken == "t")
        // An empty last page: no documents, no token (an empty token is the last page too).
        let last = try ListDocumentsRequest.decodeListDocumentsResponse([0x12, 0x00])
        #expect(last.documents.isEmpty)
        #expect(last.nextPageToken == nil)
        // documents { } (no name): the Document decoder's rule.
        let nameless = try #require(throws: FirestoreError.self) {
            try ListDocumentsRequest.decodeListDocumentsResponse([0x0A, 0x00])
        }
        #expect(nameless.code == .dataLoss)
        #expect(nameless.message == "ListDocumentsResponse.documents: Document without a name at byte 2")
    }

    @Test func listCollectionIdsGivesIdsAndTheNextPageToken() throws {
        // collection_ids: "a", collection_ids: "b", next_page_token: "n"
        let page = try Firestore.decodeListCollectionIdsResponse([0x0A, 0x01, 0x61, 0x0A, 0x01, 0x62, 0x12, 0x01, 0x6E])
        #expect(page == ListCollectionIdsResponse(collectionIds: ["a", "b"], nextPageToken: "n"))
        #expect(
            try Firestore.decodeListCollectionIdsResponse([])
                == ListCollectionIdsResponse(collectionIds: [], nextPageToken: nil))
        // collection_ids announces 5 bytes, 1 follows.
        let cut = try #require(throws: FirestoreError.self) {
            try Firestore.decodeListCollectionIdsResponse([0x0A, 0x05, 0x61])
        }
        #expect(cut.code == .dataLoss)
    }

    @Test func partitionQueryGivesOneReferencePerCursor() throws {
        let name = Array("\(Self.root)/g/m".utf8)
        // partitions { values { reference_value: .../g/m } }, next_page_token: "n"
        let value: [UInt8] = [0x2A, UInt8(name.count)] + name
        let cursor: [UInt8] = [0x0A, UInt8(value.count)] + value
        let message: [UInt8] = [0x0A, UInt8(cursor.count)] + cursor + [0x12, 0x01, 0x6E]
        let page = try Firestore.decodePartitionQueryResponse(message)
        #expect(page.elements == [.reference("\(Self.root)/g/m")])
        #expect(page.nextPageToken == "n")
        // partitions { values { integer_value: 1 } }: not a document reference.
        let wrong = try #require(throws: FirestoreError.self) {
            try Firestore.decodePartitionQueryResponse([0x0A, 0x04, 0x0A, 0x02, 0x10, 0x01])
        }
        #expect(wrong.code == .dataLoss)
        #expect(
            wrong.message == "PartitionQueryResponse.partitions: partition 0 is not one document reference at byte 1")
    }

    @Test func batchWriteGivesEachWriteItsResultOrItsStatus() throws {
        // write_results { update_time { seconds: 3 } }, write_results { }, status { }, status { code: 5, message: "no" }
        let message: [UInt8] =
            [0x0A, 0x04, 0x0A, 0x02, 0x08, 0x03] + [0x0A, 0x00] + [0x12, 0x00]
            + [0x12, 0x06, 0x08, 0x05, 0x12, 0x02, 0x6E, 0x6F]
        let response = try BatchWriteResponse(protobuf: message, writeCount: 2)
        #expect(response.outcomes.count == 2)
        let three = try Timestamp(seconds: 3, nanos: 0)
        #expect((try? response.outcomes[0].get()) == WriteResult(updateTime: three, writeTime: three))
        guard case .failure(let failure) = response.outcomes[1] else {
            Issue.record("write 1 succeeded: \(response.outcomes[1])")
            return
        }
        #expect(failure.code == .notFound)
        #expect(failure.message == "no")
        let short = try #require(throws: FirestoreError.self) {
            try BatchWriteResponse(protobuf: message, writeCount: 3)
        }
        #expect(short.code == .internal)
        #expect(
            short.message
                == "batchWrite response (writes may have been applied): 2 write_results and 2 status elements for 3 writes"
        )
    }

    @Test func explainMetricsDecodeAsTheirRESTForm() throws {
        // RunQueryResponse { explain_metrics = 11 { plan_summary { indexes_used { "query_scope": "Collection" } },
        // execution_stats { results_returned: 2, execution_duration { seconds: 1, nanos: 5 }, read_operations: 3,
        // debug_stats { "n": 2.0, "x": 0.5 } } } }
        let message = hex(
            """
            5a4f 0a1f 0a1d 0a1b 0a0b 71756572795f73636f7065 120c 1a0a 436f6c6c656374696f6e
            122c 0802 1a04 0801 1005 2003 2a20
              0a0e 0a016e 1209 110000000000000040
              0a0e 0a0178 1209 11000000000000e03f
            """)
        var response = RunQueryResponse(documents: [], readTime: nil, skippedResults: 0)
        var metrics: ExplainMetrics?
        try Firestore.addExplainedRunQueryMessage(message, to: &response, metrics: &metrics)
        #expect(
            metrics
                == ExplainMetrics(
                    planSummary: PlanSummary(indexesUsed: [["query_scope": .string("Collection")]]),
                    executionStats: ExecutionStats(
                        resultsReturned: 2, executionDuration: .seconds(1) + .nanoseconds(5), readOperations: 3,
                        debugStats: ["n": .integer(2), "x": .double(0.5)])))
        #expect(response.documents.isEmpty)
        // The same metrics over REST.
        let rest = try ExplainMetrics(
            restJSON: try JSONValue.parse(
                #"{"planSummary":{"indexesUsed":[{"query_scope":"Collection"}]},"executionStats":{"resultsReturned":"2","#
                    + #""executionDuration":"1.000000005s","readOperations":"3","debugStats":{"n":2,"x":0.5}}}"#))
        #expect(metrics == rest)
    }
}
