import FirestoreFeed
import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// `ListenRequest`, `Target` and `ListenResponse` with its members (`google/firestore/v1/firestore.proto`,
/// `write.proto`, `bloom_filter.proto`, `google/rpc/status.proto`). Expected bytes are worked out by hand.
@Suite("GRPC Listen messages", .timeLimit(.minutes(2)))
struct GRPCListenMessageTests {
    // MARK: - ListenRequest

    @Test("add_target with a documents target, resume token, target_id, expected_count and labels")
    func addDocumentsTarget() {
        let target = ListenTarget(
            documents: ["n1", "n2"], targetID: 7, resumePoint: .resumeToken([0xAB]), expectedCount: 3)
        let request = ListenRequest(adding: target, database: "d", labels: ["k": "v"])
        let expected = hex(
            """
            0a 01 64
            12 13 1a 08 12 02 6e 31 12 02 6e 32 22 01 ab 28 07 62 02 08 03
            22 06 0a 01 6b 12 01 76
            """)
        // database "d"
        // add_target { documents { documents "n1" documents "n2" } resume_token ab target_id 7
        //              expected_count { value 3 } }   (expected_count = 12: tag 12 << 3 | 2 = 0x62)
        // labels { key "k" value "v" }
        #expect(request.protobuf == expected)
    }

    @Test("add_target with a query target and a read_time")
    func addQueryTarget() throws {
        let db = try Firestore.offline()
        let target = try ListenTarget(query: db.collection("c"), targetID: 1, resumePoint: .readTime(ts(5)))
        let request = ListenRequest(adding: target, database: db.database.name)
        let database = Array("projects/p/databases/(default)".utf8)  // 30 bytes
        let parent = Array("projects/p/databases/(default)/documents".utf8)  // 40 bytes
        // add_target { query { parent "..." structured_query { from { collection_id "c" } } } target_id 1
        //              read_time { seconds 5 } }   (read_time = 11: tag 0x5a)
        let expected =
            hex("0a 1e") + database + hex("12 39 12 31 0a 28") + parent + hex("12 05 12 03 12 01 63 28 01 5a 02 08 05")
        #expect(request.protobuf == expected)
    }

    @Test("remove_target is written even when 0; a negative ID takes ten bytes")
    func removeTarget() {
        #expect(ListenRequest(removing: 7, database: "d").protobuf == hex("0a 01 64 18 07"))
        #expect(ListenRequest(removing: 0, database: "d").protobuf == hex("0a 01 64 18 00"))
        #expect(ListenRequest(removing: -1, database: "d").protobuf == hex("0a 01 64 18 ff ff ff ff ff ff ff ff ff 01"))
    }

    @Test("an invalid query fails when the target is built")
    func invalidQueryTarget() throws {
        let db = try Firestore.offline()
        #expect(
            throws: FirestoreError.invalidArgument(
                "limit(toLast:) needs at least one order(by:): Firestore has no last-N limit")
        ) {
            try ListenTarget(query: db.collection("c").limit(toLast: 2), targetID: 1)
        }
    }

    // MARK: - ListenResponse

    @Test("target_change: CURRENT, packed target_ids, resume_token, read_time")
    func targetChangeCurrent() throws {
        let bytes = hex("12 10 08 03 12 02 01 02 22 02 aa bb 32 04 08 0a 10 14")
        let expected = ListenTargetChange(
            kind: .current, targetIDs: [1, 2], resumeToken: [0xAA, 0xBB], readTime: ts(10, 20))
        #expect(try ListenResponse(protobuf: bytes) == .targetChange(expected))
    }

    @Test("target_change: REMOVE with a google.rpc.Status cause, unpacked target_ids")
    func targetChangeRemove() throws {
        let bytes = hex("12 0c 08 02 10 01 1a 06 08 07 12 02 6e 6f")
        let response = try ListenResponse(protobuf: bytes)
        let expected = ListenTargetChange(kind: .remove, targetIDs: [1], cause: RPCStatus(code: 7, message: "no"))
        #expect(response == .targetChange(expected))
        #expect(expected.cause?.error == FirestoreError(code: .permissionDenied, message: "no"))
        #expect(expected.cause?.error?.isServerStatus == true)
    }

    @Test("an empty target_change is NO_CHANGE for every target")
    func targetChangeEmpty() throws {
        #expect(try ListenResponse(protobuf: hex("12 00")) == .targetChange(ListenTargetChange(kind: .noChange)))
    }

    @Test("document_change: a document, target_ids, removed_target_ids")
    func documentChange() throws {
        let bytes = hex("1a 17 0a 10 0a 01 6e 12 07 0a 01 61 12 02 10 01 22 02 08 02 2a 01 01 30 02")
        let document = Document(name: "n", fields: ["a": 1], updateTime: ts(2))
        let expected = ListenDocumentChange(document: document, targetIDs: [1], removedTargetIDs: [2])
        #expect(try ListenResponse(protobuf: bytes) == .documentChange(expected))
    }

    @Test("document_delete: document = 1, removed_target_ids = 6, read_time = 4")
    func documentDelete() throws {
        let bytes = hex("22 0a 0a 01 6e 32 01 01 22 02 08 09")
        let expected = ListenDocumentDelete(documentName: "n", removedTargetIDs: [1], readTime: ts(9))
        #expect(try ListenResponse(protobuf: bytes) == .documentDelete(expected))
    }

    @Test("document_remove: document = 1, removed_target_ids = 2, read_time = 4")
    func documentRemove() throws {
        let bytes = hex("32 09 0a 01 6e 10 03 22 02 08 09")
        let expected = ListenDocumentRemove(documentName: "n", removedTargetIDs: [3], readTime: ts(9))
        #expect(try ListenResponse(protobuf: bytes) == .documentRemove(expected))
    }

    @Test("filter: target_id, count, unchanged_names bloom filter")
    func existenceFilter() throws {
        let bytes = hex("2a 10 08 01 10 05 1a 0a 0a 06 0a 02 0f f0 10 03 10 07")
        let bloom = ListenBloomFilter(bitmap: [0x0F, 0xF0], padding: 3, hashCount: 7)
        #expect(
            try ListenResponse(protobuf: bytes)
                == .filter(ListenExistenceFilter(targetID: 1, count: 5, unchangedNames: bloom)))
        #expect(bloom.bitCount == 13)
        #expect(ListenBloomFilter(bitmap: [], padding: 1, hashCount: 1).bitCount == nil)
        #expect(ListenBloomFilter(bitmap: [0], padding: 8, hashCount: 1).bitCount == nil)
        #expect(
            try ListenResponse(protobuf: hex("2a 04 08 01 10 00"))
                == .filter(ListenExistenceFilter(targetID: 1, count: 0)))
    }

    @Test("an empty message and an unknown response member are unrecognized")
    func unrecognized() throws {
        #expect(try ListenResponse(protobuf: []) == .unrecognized)
        #expect(try ListenResponse(protobuf: hex("3a 02 08 01")) == .unrecognized)
    }

    @Test("unknown fields inside the members are skipped")
    func unknownFieldsInMembers() throws {
        // document_delete { field 99 fixed32, document "n" } (99 << 3 | 5 = 797 = 9d 06)
        let bytes = hex("22 09 9d 06 01 02 03 04 0a 01 6e")
        #expect(try ListenResponse(protobuf: bytes) == .documentDelete(ListenDocumentDelete(documentName: "n")))
    }

    static let malformed: [(name: String, bytes: String, message: String)] = [
        (
            "a map entry's length past the end", "1a 0a 0a 08 0a 01 6e 12 84 07 0a 01",
            "ListenResponse.document_change.document.fields: length 900 past the end at byte 8"
        ),
        (
            "unknown TargetChangeType", "12 02 08 09",
            "ListenResponse.target_change.target_change_type: unknown TargetChangeType 9 at byte 2"
        ),
        (
            "document_change without a document", "1a 02 28 01",
            "ListenResponse.document_change: DocumentChange without a document at byte 2"
        ),
        (
            "target_ids of the wrong wire type", "12 09 11 00 00 00 00 00 00 00 00",
            "ListenResponse.target_change.target_ids: expected wire type varint, found fixed64 at byte 2"
        ),
        (
            "a packed run ending inside a varint", "12 03 12 01 ff",
            "ListenResponse.target_change.target_ids: truncated varint at byte 4"
        ),
        (
            "ill-formed UTF-8 in a name", "22 03 0a 01 ff",
            "ListenResponse.document_delete.document: invalid UTF-8 at byte 4"
        ),
        (
            "a member's length past the end", "12 05 08 01",
            "ListenResponse.target_change: length 5 past the end at byte 1"
        ),
        ("a group", "13 14", "ListenResponse: wire type 3 (a proto2 group, unsupported) for field 2 at byte 0"),
        (
            "a member with the wrong wire type", "10 01",
            "ListenResponse.target_change: expected wire type length-delimited, found varint at byte 0"
        ),
    ]

    @Test("malformed responses throw dataLoss naming the path and the byte offset", arguments: malformed)
    func malformedResponse(name: String, bytes: String, message: String) {
        #expect(throws: FirestoreError(code: .dataLoss, message: message), "\(name)") {
            try ListenResponse(protobuf: hex(bytes))
        }
    }

    @Test(
        "google.rpc.Code numbers map to the canonical codes",
        arguments: [
            (Int32(1), FirestoreError.Code.cancelled), (3, .invalidArgument), (5, .notFound), (7, .permissionDenied),
            (9, .failedPrecondition), (10, .aborted), (14, .unavailable), (16, .unauthenticated), (99, .unknown),
        ])
    func rpcCodes(number: Int32, code: FirestoreError.Code) {
        #expect(FirestoreError.Code(rpcCode: number) == code)
    }

    @Test("google.rpc.Code 0 is OK, not an error")
    func rpcCodeOK() {
        #expect(FirestoreError.Code(rpcCode: 0) == nil)
        #expect(RPCStatus(code: 0, message: "").error == nil)
    }
}
