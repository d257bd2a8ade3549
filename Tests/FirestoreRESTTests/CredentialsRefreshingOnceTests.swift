import FirestoreREST
import Synchronization
import Testing

/// `Credentials.refreshingOnce`, the one loop behind a REST `401` and a gRPC `UNAUTHENTICATED`: one more attempt
/// after a refusal the credentials can refresh, never two. No network.
@Suite(.timeLimit(.minutes(1))) struct CredentialsRefreshingOnceTests {
    /// Tokens `t1`, `t2`, …: each ``invalidate(refusedHeader:)`` of the current one moves to the next when
    /// `refreshable`.
    final class CountingCredentials: Credentials {
        let refreshable: Bool
        let state = Mutex((token: 1, invalidated: [String]()))
        init(refreshable: Bool) { self.refreshable = refreshable }
        func authorizationHeader() async throws -> String? { "Bearer t\(state.withLock { $0.token })" }
        func invalidate(refusedHeader: String) async -> Bool {
            state.withLock {
                $0.invalidated.append(refusedHeader)
                if refreshable { $0.token += 1 }
            }
            return refreshable
        }
    }

    @Test func aRefusedTokenIsRefreshedOnceAndTheRequestSentAgainWithTheNewOne() async throws {
        let credentials = CountingCredentials(refreshable: true)
        let sent = Mutex([String]())
        let result = try await credentials.refreshingOnce { () async throws -> (result: Int, refused: String?) in
            let header = try await credentials.authorizationHeader() ?? ""
            let count = sent.withLock {
                $0.append(header)
                return $0.count
            }
            return (count, header)  // every attempt refused
        }
        #expect(result == 2)
        #expect(sent.withLock { $0 } == ["Bearer t1", "Bearer t2"])
        #expect(credentials.state.withLock { $0.invalidated } == ["Bearer t1"])
    }

    @Test func credentialsThatCannotRefreshAreNotAskedTwice() async throws {
        let credentials = CountingCredentials(refreshable: false)
        let attempts = Mutex(0)
        let result = try await credentials.refreshingOnce { () async throws -> (result: String, refused: String?) in
            attempts.withLock { $0 += 1 }
            return ("refused", "Bearer t1")
        }
        #expect(result == "refused")
        #expect(attempts.withLock { $0 } == 1)
        #expect(credentials.state.withLock { $0.invalidated } == ["Bearer t1"])
    }

    @Test func anAcceptedAttemptIsTheResult() async throws {
        let credentials = CountingCredentials(refreshable: true)
        let result = try await credentials.refreshingOnce { () async throws -> (result: Int, refused: String?) in
            (7, nil)
        }
        #expect(result == 7)
        #expect(credentials.state.withLock { $0.invalidated } == [])
    }
}
