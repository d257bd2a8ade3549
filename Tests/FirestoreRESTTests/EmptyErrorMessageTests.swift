import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// A server error whose body gives no message (the emulator answers a project ID it cannot take with
/// `{"error":{"code":500,"status":"UNKNOWN"}}`) says what was asked and what the server said.
@Suite(.timeLimit(.minutes(2))) struct EmptyErrorMessageTests {
    @Test(arguments: [
        (
            #"{"error":{"code":500,"status":"UNKNOWN"}}"#, FirestoreError.Code.unknown,
            "POST projects/p/databases/(default)/documents:runQuery: the server gave no message (it answered "
                + #"{"error":{"code":500,"status":"UNKNOWN"}})"#
        ),
        (
            "", FirestoreError.Code.internal,
            "POST projects/p/databases/(default)/documents:runQuery: the server gave no message (it answered an "
                + "empty body)"
        ),
    ])
    func namesTheRequestAndTheAnswer(body: String, code: FirestoreError.Code, message: String) async throws {
        let transport = ScriptedTransport([.response(status: 500, body: body)])
        let db = try transport.firestore(
            credentials: NoCredentials(), retryPolicy: RetryPolicy(maxAttempts: 1, jitter: 0, clock: CountingClock()))
        let error = await #expect(throws: FirestoreError.self) {
            try await db.runQuery(parent: .root, structuredQuery: StructuredQuery(from: .init(collectionID: "c")))
        }
        #expect(error?.code == code)  // the body's status, else the HTTP status's code
        #expect(error?.httpStatus == 500)
        #expect(error?.message == message)
    }
}
