import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// Every write returns the server's ``WriteResult`` (the Node SDK's `WriteResult`): decoded from the commit
/// response the emulator sent (firestore-rest reference, CommitResponse; the body below is the emulator's answer
/// to a set, a transform-only update and a delete), and checked so that a response that does not fit the commit is
/// an error naming the member, never a silently shorter list.
@Suite(.timeLimit(.minutes(2))) struct WriteResultTests {
    /// The emulator's answer to [set c/a, update c/b with serverTimestamp / increment 5 / arrayUnion / maximum 2.5,
    /// delete c/zz].
    static let emulatorCommit = """
        {"writeResults":[{"updateTime":"2026-12-01T11:01:53.109346Z"},
          {"updateTime":"2026-12-01T11:01:53.109346Z","transformResults":[{"timestampValue":"2026-12-01T11:01:52.673Z"},
            {"integerValue":"5"},{"nullValue":null},{"doubleValue":2.5}]},{}],
         "commitTime":"2026-12-01T11:01:53.109346Z"}
        """

    @Test func decodesUpdateTimesTransformResultsAndTheDeleteAsTheEmulatorSendsThem() throws {
        let response = try CommitResponse(decoding: json(Self.emulatorCommit), writeCount: 3)
        let written = try Timestamp(rfc3339: "2026-12-01T11:01:53.109346Z")
        #expect(response.commitTime == written)
        #expect(
            response.writeResults == [
                WriteResult(updateTime: written, writeTime: written),
                WriteResult(
                    updateTime: written, writeTime: written,
                    transformResults: [
                        .timestamp(try Timestamp(rfc3339: "2026-12-01T11:01:52.673Z")), .integer(5), .null,
                        .double(2.5),
                    ]),
                WriteResult(updateTime: nil, writeTime: written),
            ])
        #expect(response.updateTimes == [written, written, nil])
    }

    @Test func anEmptyCommitHasNoResults() throws {
        let response = try CommitResponse(decoding: json("{}"), writeCount: 0)
        #expect(response.writeResults == [])
        #expect(response.commitTime == nil)
    }

    @Test(arguments: [
        (
            #"{"writeResults":[{}],"commitTime":"2024-01-01T00:00:00Z"}"#, 2,
            "commit response (the commit was applied): 1 write results for 2 writes"
        ),
        (#"{}"#, 1, "commit response (the commit was applied): 0 write results for 1 writes"),
        (#"{"writeResults":{}}"#, 1, "commit response (the commit was applied): writeResults is an object"),
        (
            #"{"writeResults":[{"updateTime":"yesterday"}]}"#, 1,
            "commit response (the commit was applied): writeResults[0].updateTime: "
        ),
        (
            #"{"writeResults":[{"updateTime":"2024-01-01T00:00:00Z","transformResults":[{"integerValue":"x"}]}]}"#, 1,
            "commit response (the commit was applied): writeResults[0].transformResults[0]"
        ),
        (
            #"{"writeResults":[{}]}"#, 1,
            "commit response (the commit was applied): writeResults[0] has no updateTime and the response no commitTime"
        ),
        (#"[]"#, 0, "commit response (the commit was applied): the body is an array, not an object"),
    ])
    func aResponseThatDoesNotFitTheCommitIsAnErrorNamingWhat(body: String, writes: Int, message: String) throws {
        let error = #expect(throws: FirestoreError.self) {
            try CommitResponse(decoding: json(body), writeCount: writes)
        }
        #expect(error?.code == .internal)
        #expect(error?.message.hasPrefix(message) == true, "\(error?.message ?? "")")
    }

    static func transport(answering body: String) -> ScriptedTransport {
        ScriptedTransport { _, _ in HTTPResponse(status: 200, body: Data(body.utf8)) }
    }

    @Test func documentWritesReturnTheirResult() async throws {
        let body =
            #"{"writeResults":[{"updateTime":"2024-01-01T00:00:02Z","transformResults":[{"integerValue":"43"}]}],"commitTime":"2024-01-01T00:00:02Z"}"#
        let transport = Self.transport(answering: body)
        let db = try transport.firestore()
        let expected = WriteResult(
            updateTime: ts(1_704_067_202), writeTime: ts(1_704_067_202), transformResults: [.integer(43)])
        let counter = db.document("counters/visits")
        #expect(try await counter.updateData(["n": .increment(Int64(1))]) == expected)
        #expect(try await counter.setData(["n": .increment(Int64(1))], merge: true) == expected)
        #expect(try await counter.setData(["n": .increment(Int64(1))], mergeFields: ["n"]) == expected)
        #expect(try await counter.create(["n": .increment(Int64(1))]) == expected)
        #expect(try await counter.updateData(fields: [try fieldPath("n"): .increment(Int64(1))]) == expected)
        #expect(try await counter.updateData(pathsAndValues: [(try fieldPath("n"), .increment(Int64(1)))]) == expected)
        #expect(transport.calls == Array(repeating: "POST :commit", count: 6))
    }

    @Test func aDeleteHasNoUpdateTimeAndTheCommitTimeAsWriteTime() async throws {
        let transport = Self.transport(answering: #"{"writeResults":[{}],"commitTime":"2024-01-01T00:00:03Z"}"#)
        let result = try await transport.firestore().document("c/d").delete()
        #expect(result == WriteResult(updateTime: nil, writeTime: ts(1_704_067_203)))
    }

    @Test func addReturnsTheNewReferenceAndItsResult() async throws {
        let transport = Self.transport(
            answering: #"{"writeResults":[{"updateTime":"2024-01-01T00:00:04Z"}],"commitTime":"2024-01-01T00:00:04Z"}"#)
        let db = try transport.firestore()
        let (reference, result) = try await db.collection("fruits").add(["name": "Fig"])
        #expect(result == WriteResult(updateTime: ts(1_704_067_204), writeTime: ts(1_704_067_204)))
        #expect(reference.parent.path == "fruits")
        #expect(reference.documentID.utf8.count == 20)
        let write = try #require(transport.bodies.first?["writes"]?.arrayValue?.first)
        #expect(write["currentDocument"] == ["exists": false])
        #expect(write["update"]?["name"] == .string("projects/p/databases/(default)/documents/" + reference.path))
    }

    @Test func aBatchReturnsOneResultPerWriteInOrder() async throws {
        let transport = Self.transport(
            answering: """
                {"writeResults":[{"updateTime":"2024-01-01T00:00:05Z"},{},
                  {"updateTime":"2024-01-01T00:00:04Z","transformResults":[{"nullValue":null}]}],
                 "commitTime":"2024-01-01T00:00:05Z"}
                """)
        let db = try transport.firestore()
        let batch = db.batch()
        try batch.setData(["a": 1], forDocument: db.document("c/a"))
            .deleteDocument(db.document("c/b"))
            .updateData(["tags": .arrayUnion(["x"])], forDocument: db.document("c/c"))
        #expect(
            try await batch.commit() == [
                WriteResult(updateTime: ts(1_704_067_205), writeTime: ts(1_704_067_205)),
                WriteResult(updateTime: nil, writeTime: ts(1_704_067_205)),
                WriteResult(updateTime: ts(1_704_067_204), writeTime: ts(1_704_067_204), transformResults: [.null]),
            ])
    }

    @Test func aResponseWithTooFewResultsFailsTheWriteAndSaysItWasApplied() async throws {
        let transport = Self.transport(answering: "{}")
        let error = await #expect(throws: FirestoreError.self) {
            try await transport.firestore().document("c/d").setData(["a": 1])
        }
        #expect(error?.code == .internal)
        #expect(error?.message == "commit response (the commit was applied): 0 write results for 1 writes")
    }

    /// `runTransactionWithWriteResults` hands back the closure's value and the results of the committing attempt:
    /// the second, after the first commit was aborted.
    @Test func aTransactionReturnsTheResultsOfTheAttemptThatCommitted() async throws {
        let transport = ScriptedTransport { request, index in
            if request.url.hasSuffix(":beginTransaction") { return .ok(["transaction": .string("T\(index)")]) }
            if index == 1 { return .error(409, "ABORTED", "Transaction lock timeout.") }
            if request.url.hasSuffix(":commit") {
                return .ok([
                    "writeResults": [
                        ["updateTime": "2024-01-01T00:00:06Z", "transformResults": [["integerValue": "7"]]], [:],
                    ],
                    "commitTime": "2024-01-01T00:00:06Z",
                ])
            }
            return .ok([:])
        }
        let db = try transport.firestore()
        let runs = Counter()
        let outcome = try await db.runTransactionWithWriteResults { transaction -> Int in
            runs.increment()
            try transaction.updateData(["n": .increment(Int64(1))], forDocument: db.document("c/n"))
                .deleteDocument(db.document("c/old"))
            return runs.value
        }
        #expect(outcome.value == 2)
        #expect(
            outcome.writeResults == [
                WriteResult(
                    updateTime: ts(1_704_067_206), writeTime: ts(1_704_067_206), transformResults: [.integer(7)]),
                WriteResult(updateTime: nil, writeTime: ts(1_704_067_206)),
            ])
        #expect(
            transport.calls == [
                "POST :beginTransaction", "POST :commit", "POST :rollback", "POST :beginTransaction", "POST :commit",
            ])
    }
}
