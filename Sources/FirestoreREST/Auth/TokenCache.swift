import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Caches one access token and refreshes it with a single request however many tasks need it at once.
///
/// - A cached token is handed out while more than `refreshMargin` seconds of it remain.
/// - Inside the margin (or once it expired, or after ``invalidate(refusedHeader:)``), the next caller starts a
///   refresh; every caller arriving while it runs awaits the same refresh, so N concurrent requests cause
///   exactly one token request.
/// - A failed refresh is reported to every waiting caller, except that a token with more than
///   `minimumValidity` seconds left is still handed out (the refresh is tried again by the next caller).
/// - The refresh runs in a task of its own, so cancelling one waiting caller does not cancel it for the
///   others.
actor TokenCache {
    /// Fetches a new token (a token-endpoint request, a metadata-server request, or local JWT signing).
    typealias Fetch = @Sendable () async throws -> AccessToken

    private let fetch: Fetch
    private let now: @Sendable () -> Date
    private let refreshMargin: Double
    private let minimumValidity: Double
    private var token: AccessToken?
    private var refresh: Task<AccessToken, any Error>?
    /// How many refreshes were started (for tests).
    private(set) var refreshCount = 0

    /// - Parameters:
    ///   - refreshMargin: seconds before expiry at which a token is refreshed (default 300).
    ///   - minimumValidity: seconds a token must still be valid to be used when its refresh failed (default 10).
    ///   - now: the wall clock (injected for tests).
    ///   - fetch: obtains a new token.
    init(
        refreshMargin: Double = 300, minimumValidity: Double = 10, now: @escaping @Sendable () -> Date,
        fetch: @escaping Fetch
    ) {
        self.refreshMargin = refreshMargin
        self.minimumValidity = minimumValidity
        self.now = now
        self.fetch = fetch
    }

    /// A token with more than `refreshMargin` seconds left, refreshing it first when needed.
    /// - Throws: the refresh's error, when no usable token is cached.
    func currentToken() async throws -> AccessToken {
        if let token, token.secondsRemaining(at: now()) > refreshMargin {
            return token
        }
        let task: Task<AccessToken, any Error>
        if let refresh {
            task = refresh
        } else {
            let fetch = self.fetch
            task = Task { try await fetch() }
            refresh = task
            refreshCount += 1
        }
        do {
            let fresh = try await task.value
            if refresh == task {
                refresh = nil
                token = fresh
            }
            return fresh
        } catch {
            if refresh == task { refresh = nil }
            if let token, token.secondsRemaining(at: now()) > minimumValidity {
                return token
            }
            throw error
        }
    }

    /// Drops the cached token when it is the one whose header the server refused with `401`, so the next
    /// caller refreshes. A token already replaced by a newer one is kept.
    func invalidate(refusedHeader: String) {
        if token?.authorizationHeader == refusedHeader {
            token = nil
        }
    }
}
