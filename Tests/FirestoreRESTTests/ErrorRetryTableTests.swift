import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The one retry table (`FirestoreError.Code.retryRule`), row by row, as the client's request path uses it: an
/// idempotent read that fails with the row's code is sent again (then succeeds) or thrown at once. The feed's side
/// of every row is `FeedErrorRetryTableTests`.
@Suite(.timeLimit(.minutes(2))) struct ErrorRetryTableTests {
    @Test func theTableHasOneRowPerCanonicalCodeAsWrittenOut() {
        #expect(FirestoreError.Code.canonical == ExpectedRetryTable.rows.map(\.code))
        for row in ExpectedRetryTable.rows {
            let rule = row.code.retryRule
            #expect(rule.retriesRequest == row.retriesRequest, "\(row)")
            #expect(rule.feedRetries == row.feedRetries, "\(row)")
            #expect(rule.renewsCredentials == row.renewsCredentials, "\(row)")
            #expect(!rule.reason.isEmpty, "\(row)")
        }
        #expect(
            FirestoreError.Code.retriedRequestCodes == [
                .unknown, .deadlineExceeded, .resourceExhausted, .internal, .unavailable,
            ])
        #expect(RetryPolicy.default.retryableCodes == FirestoreError.Code.retriedRequestCodes)
        #expect(FirestoreError.Code.unavailable.retryRule.description == "request: retried, feed: retries")
        #expect(
            FirestoreError.Code.unauthenticated.retryRule.description
                == "request: thrown, feed: ends, credentials renewed once")
    }

    @Test func aCodeThisClientDoesNotKnowIsTreatedAsUnknown() {
        #expect(FirestoreError.Code(rawValue: "SOMETHING_NEW").retryRule == FirestoreError.Code.unknown.retryRule)
    }

    @Test(arguments: ExpectedRetryTable.rows)
    func anIdempotentReadIsRetriedOrThrownAsItsRowSays(row: ExpectedRetryTable.Row) async throws {
        let clock = CountingClock()
        let transport = ScriptedTransport { _, index in
            index == 0
                ? HTTPResponse(status: 400, body: Data(ExpectedRetryTable.body(row.code).utf8))
                : .ok(oneDocumentRunQueryBody)
        }
        let db = try transport.firestore(
            credentials: NoCredentials(), retryPolicy: RetryPolicy(jitter: 0, clock: clock))
        let query = StructuredQuery(from: .init(collectionID: "c"))
        if row.retriesRequest {
            let result = try await db.runQuery(parent: .root, structuredQuery: query)
            #expect(result.documents.map(\.name) == ["projects/p/databases/(default)/documents/c/d"])
            #expect(transport.calls == ["POST :runQuery", "POST :runQuery"])
            #expect(clock.requestedDelays == [.milliseconds(250)])
        } else {
            let error = await #expect(throws: FirestoreError.self) {
                try await db.runQuery(parent: .root, structuredQuery: query)
            }
            #expect(error?.code == row.code)
            #expect(error?.message == "row \(row.code.name)")
            #expect(transport.calls == ["POST :runQuery"])
            #expect(clock.requestedDelays == [])
        }
    }

    /// The `unauthenticated` row: a 401 makes the client renew the token and send once more; a second 401 is final.
    @Test func unauthenticatedRenewsTheCredentialsOnceThenIsThrown() async throws {
        let transport = ScriptedTransport { _, _ in
            HTTPResponse(status: 401, body: Data(ExpectedRetryTable.body(.unauthenticated).utf8))
        }
        let credentials = CountingCredentials()
        let db = try transport.firestore(
            credentials: credentials, retryPolicy: RetryPolicy(jitter: 0, clock: CountingClock()))
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(error?.code == .unauthenticated)
        #expect(transport.calls == ["GET /c/d", "GET /c/d"])
        #expect(credentials.invalidated == ["Bearer t1"])  // t2 was refused too: final
    }

    /// Idempotency still decides first: a commit that failed with a retried code after reaching the server is thrown,
    /// never sent again (its write may have been applied).
    @Test func aCommitIsNotRetriedOnARetriedCode() async throws {
        let transport = ScriptedTransport { _, _ in
            HTTPResponse(status: 400, body: Data(ExpectedRetryTable.body(.unknown).utf8))
        }
        let db = try transport.firestore(
            credentials: NoCredentials(), retryPolicy: RetryPolicy(jitter: 0, clock: CountingClock()))
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").setData(["n": 1]) }
        #expect(error?.code == .unknown)
        #expect(transport.calls == ["POST :commit"])
    }
}
