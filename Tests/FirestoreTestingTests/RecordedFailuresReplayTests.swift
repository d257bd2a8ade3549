import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// `Recordings/failures.json` (recorded by `Scripts/record failures` through `Scripts/fault-proxy` and a refusing
/// port) replayed offline: each recorded failure is thrown as the same `FirestoreError`, and the client's retry
/// path runs as it ran live.
@Suite(.timeLimit(.minutes(2))) struct RecordedFailuresReplayTests {
    static let apple = "http://replay.invalid/v1/projects/demo-failures/databases/(default)/documents/failures/apple"
    static let commit = "http://replay.invalid/v1/projects/demo-failures/databases/(default)/documents:commit"

    /// A replaying client whose failed requests are tried `attempts` times in all, on a clock that never waits.
    static func client(_ transport: ReplayTransport, attempts: Int) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "demo-failures"), baseURL: "http://replay.invalid/v1/",
            credentials: EmulatorOwnerCredentials(), transport: transport, isEmulator: true,
            retryPolicy: RetryPolicy(maxAttempts: attempts, jitter: 0, clock: ImmediateClock()))
    }

    @Test func theCassetteHoldsTheRecordedFailures() throws {
        let cassette = try RecordingsFolder.cassette("failures.json")
        #expect(
            cassette.interactions.map { $0.failure?.kind } == [
                nil, .reset, .timeout, nil, .refused, .refused, .refused,
            ])
        #expect(
            cassette.interactions.map { $0.failure?.code } == [nil, .unavailable, .deadlineExceeded, nil] + [
                .unavailable, .unavailable, .unavailable,
            ])
    }

    @Test func eachFailureReplaysAsTheSameError() async throws {
        let transport = ReplayTransport(
            cassette: try RecordingsFolder.cassette("failures.json"), name: "failures.json")
        func failure(_ method: String, _ url: String) async -> FirestoreError? {
            await #expect(throws: FirestoreError.self) {
                _ = try await transport.send(HTTPRequest(method: method, url: url, headers: [], body: nil))
            }
        }
        let reset = await failure("GET", Self.apple)
        #expect(reset?.code == .unavailable)
        #expect(
            reset?.message
                == "failed to receive the response: http://replay.invalid:80/v1/projects/demo-failures/databases/"
                + "(default)/documents/failures/apple (Recv failure: Connection reset by peer)")
        #expect(reset?.httpStatus == nil)
        #expect(reset?.requestWasNotSent == false)
        let timeout = await failure("GET", Self.apple)
        #expect(timeout?.code == .deadlineExceeded)
        #expect(
            timeout?.message
                == "timed out (connectTimeout 5.0 s, requestTimeout 2.0 s): http://replay.invalid:80/v1/projects/"
                + "demo-failures/databases/(default)/documents/failures/apple (Operation timed out after 2000 "
                + "milliseconds with 0 bytes received)")
        let answered = try await transport.send(HTTPRequest(method: "GET", url: Self.apple))
        #expect(answered.status == 200)
        let refused = await failure("GET", Self.apple)
        #expect(refused?.code == .unavailable)
        #expect(
            refused?.message
                == "could not connect: http://replay.invalid:80/v1/projects/demo-failures/databases/(default)/"
                + "documents/failures/apple (Failed to connect to replay.invalid port 80 after 0 ms: Couldn't "
                + "connect to server)")
        #expect(refused?.requestWasNotSent == true)
    }

    /// The retry path of an idempotent read, offline: reset, timed out, then answered, in three attempts.
    @Test func aReadIsRetriedAfterTheRecordedResetAndTimeoutThenSucceeds() async throws {
        let transport = ReplayTransport(
            cassette: try RecordingsFolder.cassette("failures.json"), name: "failures.json")
        let db = try Self.client(transport, attempts: 3)
        let apple = try await db.document("failures/apple").getDocument()
        #expect(apple.data() == ["name": "Apple", "kcal": 52])
        #expect(transport.unplayedIndices == [0, 4, 5, 6])
        #expect(transport.playCount == 3)
    }

    @Test func withoutRetriesTheReadFailsWithTheRecordedReset() async throws {
        let transport = ReplayTransport(
            cassette: try RecordingsFolder.cassette("failures.json"), name: "failures.json")
        let db = try Self.client(transport, attempts: 1)
        let error = await #expect(throws: FirestoreError.self) { try await db.document("failures/apple").getDocument() }
        #expect(error?.code == .unavailable)
        #expect(error?.message.hasPrefix("failed to receive the response: http://replay.invalid:80/v1/") == true)
        #expect(transport.unplayedIndices == [0, 2, 3, 4, 5, 6])
    }

    /// A refused connection proves nothing was sent, so even a commit is sent again: both recorded attempts play.
    @Test func aCommitIsRetriedAfterARecordedRefusal() async throws {
        var cassette = try RecordingsFolder.cassette("failures.json")
        cassette.interactions = Array(cassette.interactions[5...])  // the two refused commits
        let transport = ReplayTransport(cassette: cassette, name: "failures.json")
        let db = try Self.client(transport, attempts: 2)
        let error = await #expect(throws: FirestoreError.self) {
            try await db.document("failures/apple").updateData(["kcal": 53])
        }
        #expect(error?.code == .unavailable)
        #expect(
            error?.message
                == "could not connect: http://replay.invalid:80/v1/projects/demo-failures/databases/(default)/"
                + "documents:commit (Failed to connect to replay.invalid port 80 after 0 ms: Couldn't connect to "
                + "server)")
        #expect(transport.unplayedIndices == [])
    }

    /// A commit whose connection was reset is not sent again, recorded or live: the write may have been applied.
    @Test func aCommitIsNotRetriedAfterAReset() async throws {
        let failure = Cassette.Failure(kind: .reset, code: .unavailable, message: "failed to send the request")
        let request = Cassette.Request(
            method: "POST", path: "/v1/projects/demo-failures/databases/(default)/documents:commit",
            body: Data(#"{"writes":[{"delete":"projects/demo-failures/databases/(default)/documents/c/d"}]}"#.utf8))
        let transport = ReplayTransport(
            cassette: Cassette(interactions: [Cassette.Interaction(request: request, failure: failure)]), name: "t")
        let db = try Self.client(transport, attempts: 5)
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").delete() }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "failed to send the request")
        #expect(transport.playCount == 1)
    }
}
