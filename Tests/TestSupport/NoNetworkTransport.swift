import FirestoreREST

/// A transport for tests that must never reach the network: every request fails with one error (by default
/// `unavailable`, "unit tests make no HTTP requests").
package struct NoNetworkTransport: HTTPTransport {
    /// What every request throws.
    package let error: FirestoreError

    /// A transport whose every request throws `error`.
    package init(
        _ error: FirestoreError = FirestoreError(code: .unavailable, message: "unit tests make no HTTP requests")
    ) {
        self.error = error
    }

    package func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        throw error
    }
}

extension Firestore {
    /// An emulator-style client of project `p` at `127.0.0.1:1` whose requests go to `transport` (by default
    /// nowhere: ``NoNetworkTransport``), for tests that build queries and requests without a server or answer
    /// them from a script.
    package static func offline(transport: any HTTPTransport = NoNetworkTransport()) throws -> Firestore {
        try Firestore.emulator(host: "127.0.0.1:1", projectID: "p", transport: transport)
    }
}
