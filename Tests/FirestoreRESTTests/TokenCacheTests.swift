import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST

/// `TokenCache`: one refresh however many tasks ask at once, refresh ahead of expiry, and what a failed
/// refresh does. Time comes from a settable wall clock.
@Suite("TokenCache", .timeLimit(.minutes(2)))
struct TokenCacheTests {
    /// Hands out `token-1`, `token-2`, ... each valid for `lifetime` seconds, after a short pause so concurrent
    /// callers overlap; fails while `failing` is set.
    final class Issuer: Sendable {
        private let state = Mutex<(count: Int, failing: Bool)>((0, false))
        let clock: WallClock
        let lifetime: Double
        init(clock: WallClock, lifetime: Double = 3600) {
            self.clock = clock
            self.lifetime = lifetime
        }
        var count: Int { state.withLock { $0.count } }
        func setFailing(_ failing: Bool) { state.withLock { $0.failing = failing } }
        func issue() async throws -> AccessToken {
            try await Task.sleep(for: .milliseconds(50))
            let (count, failing) = state.withLock { state in
                state.count += 1
                return (state.count, state.failing)
            }
            if failing { throw FirestoreError(code: .unavailable, message: "token endpoint down") }
            return AccessToken(value: "token-\(count)", expiresAt: clock.now.addingTimeInterval(lifetime))
        }
    }

    @Test func fiftyConcurrentCallersCauseOneRefresh() async throws {
        let clock = WallClock()
        let issuer = Issuer(clock: clock)
        let cache = TokenCache(now: { clock.now }, fetch: issuer.issue)
        let values = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<50 { group.addTask { try await cache.currentToken().value } }
            return try await group.reduce(into: [String]()) { $0.append($1) }
        }
        #expect(values == Array(repeating: "token-1", count: 50))
        #expect(issuer.count == 1)
        #expect(await cache.refreshCount == 1)
    }

    @Test func aTokenIsRefreshedWhenLessThanTheMarginRemains() async throws {
        let clock = WallClock()
        let issuer = Issuer(clock: clock)
        let cache = TokenCache(refreshMargin: 300, now: { clock.now }, fetch: issuer.issue)
        #expect(try await cache.currentToken().value == "token-1")
        clock.advance(by: 3299)  // 301 s left
        #expect(try await cache.currentToken().value == "token-1")
        clock.advance(by: 2)  // 299 s left
        #expect(try await cache.currentToken().value == "token-2")
        #expect(issuer.count == 2)
    }

    @Test func aFailedEarlyRefreshKeepsTheStillValidToken() async throws {
        let clock = WallClock()
        let issuer = Issuer(clock: clock)
        let cache = TokenCache(refreshMargin: 300, minimumValidity: 10, now: { clock.now }, fetch: issuer.issue)
        #expect(try await cache.currentToken().value == "token-1")
        clock.advance(by: 3500)  // 100 s left: inside the margin, still valid
        issuer.setFailing(true)
        #expect(try await cache.currentToken().value == "token-1")
        clock.advance(by: 95)  // 5 s left: too little to use
        let error = await #expect(throws: FirestoreError.self) { try await cache.currentToken() }
        #expect(error?.message == "token endpoint down")
        issuer.setFailing(false)
        #expect(try await cache.currentToken().value == "token-4")
    }

    @Test func invalidateDropsOnlyTheRefusedToken() async throws {
        let clock = WallClock()
        let issuer = Issuer(clock: clock)
        let cache = TokenCache(now: { clock.now }, fetch: issuer.issue)
        #expect(try await cache.currentToken().value == "token-1")
        await cache.invalidate(refusedHeader: "Bearer token-0")  // an older token: keep token-1
        #expect(try await cache.currentToken().value == "token-1")
        await cache.invalidate(refusedHeader: "Bearer token-1")
        #expect(try await cache.currentToken().value == "token-2")
        #expect(issuer.count == 2)
    }

    @Test func aTokenWithoutExpiryIsKeptUntilInvalidated() async throws {
        let clock = WallClock()
        let count = Mutex(0)
        let fetch: TokenCache.Fetch = {
            let value = count.withLock { count in
                count += 1
                return count
            }
            return AccessToken(value: "forever-\(value)", expiresAt: nil)
        }
        let cache = TokenCache(now: { clock.now }, fetch: fetch)
        #expect(try await cache.currentToken().value == "forever-1")
        clock.advance(by: 1e9)
        #expect(try await cache.currentToken().value == "forever-1")
        await cache.invalidate(refusedHeader: "Bearer forever-1")
        #expect(try await cache.currentToken().value == "forever-2")
    }
}
