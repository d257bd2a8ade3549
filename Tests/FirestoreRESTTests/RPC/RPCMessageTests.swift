import Testing

@testable import FirestoreREST

/// The request encoders and response decoders of the gRPC methods (`RPC/`), on bytes written out field by field from
/// `google/firestore/v1/firestore.proto`, `write.proto` and `common.proto`.
@Suite("RPC messages", .timeLimit(.minutes(1)))
struct RPCMessageTests {
    static let root = "projects/p/databases/(default)/documents"

    /// `read_time { seconds: s }`, as field `number`.
    static func readTime(_ number: UInt8, seconds: UInt8) -> [UInt8] { [number << 3 | 2, 0x02, 0x08, seconds] }

    @Test func runQueryMessagesGiveDocumentsTransactionSkippedResultsAndTheLatestReadTime() throws {
        let name = Array("\(Self.root)/c/d".utf8)
        let document: [UInt8] = [0x0A, UInt8(name.count + 2), 0x0A, UInt8(name.count)] + name
        let messages: [[UInt8]] = [
            [0x12, 0x03, 0x01, 0x02, 0x03],  // transaction: 01 02 03
            [0x20, 0x02] + Self.readTime(3, seconds: 7),  // skipped_results: 2, read_time 7 s
            document + Self.readTime(3, seconds: 9),  // document, read_time 9 s
            [0x30, 0x01] + Self.readTime(3, seconds: 8),  // done, an older read_time
        ]
        let response = try Firestore.decodeRunQuery(messages: messages)
        #expect(response.transaction == "AQID")
        #expect(response.skippedResults == 2)
        #expect(response.documents == [Document(name: "\(Self.root)/c/d", fields: [:])])
        #expect(response.readTime == (try Timestamp(seconds: 9, nanos: 0)))
        #expect(response.responseBytes == messages.map(\.count).reduce(0, +))
        let empty = try #require(throws: FirestoreError.self) {
            try Firestore.decodeRunQuery(messages: [[0x30, 0x01]])
        }
        #expect(empty.message == "runQuery response carries no readTime")
    }

    @Test func batchGetMessagesGiveFoundAndMissing() throws {
        let name = "\(Self.root)/c/d"
        let gone = "\(Self.root)/c/gone"
        var result = BatchGetResponse(found: [:], missing: [], readTime: nil)
        try Firestore.addBatchGetMessage(
            [0x0A, UInt8(name.utf8.count + 2), 0x0A, UInt8(name.utf8.count)] + Array(name.utf8)
                + Self.readTime(4, seconds: 5), to: &result)
        try Firestore.addBatchGetMessage([0x12, UInt8(gone.utf8.count)] + Array(gone.utf8), to: &result)
        #expect(result.found == [ByteExactName(name: name): Document(name: name, fields: [:])])
        #expect(result.missing == [gone])
        #expect(result.readTime == (try Timestamp(seconds: 5, nanos: 0)))
    }

    @Test func commitResponsesKeepOneResultPerWrite() throws {
        // write_results: [{ update_time 3 s, transform_results: [integer_value 4] }, {}], commit_time 6 s.
        let message: [UInt8] =
            [0x0A, 0x08] + Self.readTime(1, seconds: 3) + [0x12, 0x02, 0x10, 0x04] + [0x0A, 0x00]
            + Self.readTime(2, seconds: 6)
        let response = try Firestore.decodeCommitResponse(message, writeCount: 2)
        #expect(
            response.writeResults == [
                WriteResult(
                    updateTime: try Timestamp(seconds: 3, nanos: 0), writeTime: try Timestamp(seconds: 3, nanos: 0),
                    transformResults: [.integer(4)]),
                WriteResult(updateTime: nil, writeTime: try Timestamp(seconds: 6, nanos: 0)),
            ])
        let error = try #require(throws: FirestoreError.self) {
            try Firestore.decodeCommitResponse(message, writeCount: 3)
        }
        #expect(error.code == .internal)
        #expect(error.message == "commit response (the commit was applied): 2 write results for 3 writes")
    }

    @Test func writesAndTransactionOptionsEncodeAsTheProtosSay() throws {
        let database = try DatabaseID(projectID: "p")
        var delete = ProtobufWriter()
        Write.delete(path: try ResourcePath("c/d"), precondition: .exists(false))
            .writeProtobuf(database: database, to: &delete)
        let name = Array("\(Self.root)/c/d".utf8)
        #expect(delete.bytes == [0x12, UInt8(name.count)] + name + [0x22, 0x02, 0x08, 0x00])

        var update = ProtobufWriter()
        Write.update(
            path: try ResourcePath("c/d"), fields: [:], mask: [try FieldPath(["a"])], precondition: nil,
            transforms: [FieldTransform(fieldPath: try FieldPath(["t"]), operation: .setToServerTime)]
        ).writeProtobuf(database: database, to: &update)
        #expect(
            update.bytes
                == [0x0A, UInt8(name.count + 2), 0x0A, UInt8(name.count)] + name
                + [0x1A, 0x03, 0x0A, 0x01, 0x61]  // update_mask { field_paths: "a" }
                + [0x3A, 0x05, 0x0A, 0x01, 0x74, 0x10, 0x01])  // update_transforms { "t", REQUEST_TIME }

        var readOnly = ProtobufWriter()
        try TransactionMode.readOnly(readTime: try Timestamp(seconds: 2, nanos: 0)).writeProtobuf(to: &readOnly)
        #expect(readOnly.bytes == [0x12, 0x04, 0x12, 0x02, 0x08, 0x02])
        var readWrite = ProtobufWriter()
        try TransactionMode.readWrite(retrying: "AQID").writeProtobuf(to: &readWrite)
        #expect(readWrite.bytes == [0x1A, 0x05, 0x0A, 0x03, 0x01, 0x02, 0x03])
    }
}
