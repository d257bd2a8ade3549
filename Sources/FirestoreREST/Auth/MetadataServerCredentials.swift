import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Credentials from the metadata server of Compute Engine, Cloud Run, Cloud Functions, App Engine and GKE
/// (workload identity): `GET http://<host>/computeMetadata/v1/instance/service-accounts/<account>/token` with
/// `Metadata-Flavor: Google` (
/// https://cloud.google.com/compute/docs/access/authenticate-workloads).
///
/// The host is `GCE_METADATA_HOST` when set (`host` or `host:port`, as the Go and Rust auth libraries
/// honour it), else `metadata.google.internal`. Requests to it never go through a proxy. Tokens are cached,
/// refreshed ahead of expiry by a single request, and dropped after a `401`.
public final class MetadataServerCredentials: Credentials, CustomStringConvertible {
    /// The environment variable that overrides the metadata server's host.
    package static let hostVariable = "GCE_METADATA_HOST"
    /// The metadata server's host name on Google Cloud.
    package static let defaultHost = "metadata.google.internal"

    /// The metadata server's `host` or `host:port`.
    public let host: String
    /// The service account whose token is requested (`default` is the one attached to the workload).
    public let serviceAccount: String
    /// Scopes asked for (`?scopes=` on the token URL), or `nil` for the account's default scopes.
    public let scopes: [String]?
    private let transport: any HTTPTransport
    private let cache: TokenCache

    /// - Parameters:
    ///   - host: the metadata server's `host[:port]`; `nil` (default) reads `GCE_METADATA_HOST` from
    ///     `environment`, falling back to `metadata.google.internal`.
    ///   - serviceAccount: the account (default `default`).
    ///   - scopes: scopes to request, or `nil` for the account's defaults.
    ///   - environment: where `GCE_METADATA_HOST` is looked up (default: the process environment).
    ///   - transport: the transport for metadata requests; by default a ``CurlTransport`` that uses no proxy,
    ///     connects within 3 s and answers within 10 s.
    ///   - refreshMargin: seconds before expiry at which the token is refreshed (default 300).
    ///   - now: the wall clock (for tests).
    public init(
        host: String? = nil, serviceAccount: String = "default", scopes: [String]? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment, transport: (any HTTPTransport)? = nil,
        refreshMargin: Double = 300, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        let resolvedHost = Self.hostFrom(explicit: host, environment: environment)
        self.host = resolvedHost
        self.serviceAccount = serviceAccount
        self.scopes = scopes
        let transport =
            transport ?? CurlTransport(configuration: .init(connectTimeout: 3, requestTimeout: 10, proxy: ""))
        self.transport = transport
        var tokenURL =
            "http://\(resolvedHost)/computeMetadata/v1/instance/service-accounts/"
            + ResourcePath.percentEncode(serviceAccount) + "/token"
        if let scopes, !scopes.isEmpty {
            tokenURL += "?scopes=" + scopes.map(ResourcePath.percentEncode).joined(separator: ",")
        }
        let request = HTTPRequest(
            method: "GET", url: tokenURL, headers: [HTTPHeader("Metadata-Flavor", "Google")])
        cache = TokenCache(refreshMargin: refreshMargin, now: now) {
            try await OAuthTokenEndpoint.send(request, transport: transport, now: now)
        }
    }

    /// The host to use: `explicit`, else a non-empty `GCE_METADATA_HOST` (with any `http://` and trailing `/`
    /// removed), else `metadata.google.internal`.
    static func hostFrom(explicit: String?, environment: [String: String]) -> String {
        var host = explicit ?? environment[hostVariable] ?? ""
        for scheme in ["http://", "https://"] where host.lowercased().hasPrefix(scheme) {
            host.removeFirst(scheme.count)
        }
        while host.hasSuffix("/") { host.removeLast() }
        return host.isEmpty ? defaultHost : host
    }

    /// `Bearer <access token>`, from the cache or freshly obtained.
    /// - Throws: ``FirestoreError``: `.unavailable` when the metadata server cannot be reached (not on Google
    ///   Cloud, or `GCE_METADATA_HOST` wrong), `.notFound` for an unknown service account.
    public func authorizationHeader() async throws -> String? {
        try await cache.currentToken().authorizationHeader
    }

    /// Drops the refused token.
    /// - Returns: `true`.
    public func invalidate(refusedHeader: String) async -> Bool {
        await cache.invalidate(refusedHeader: refusedHeader)
        return true
    }

    /// The project the workload runs in: `GET /computeMetadata/v1/project/project-id`.
    /// - Throws: ``FirestoreError``: the transport's error, or the HTTP status's code (`.notFound`, ...) for a
    ///   non-2xx answer, or `.internal` for an empty body.
    public func projectID() async throws -> String {
        let request = HTTPRequest(
            method: "GET", url: "http://\(host)/computeMetadata/v1/project/project-id",
            headers: [HTTPHeader("Metadata-Flavor", "Google")])
        let response = try await transport.send(request)
        let location = Redaction.url(request.url)
        guard (200..<300).contains(response.status) else {
            throw FirestoreError(
                code: FirestoreError.Code.forHTTPStatus(response.status),
                message: "metadata server \(location) answered HTTP \(response.status)", httpStatus: response.status)
        }
        let id = String(decoding: response.body, as: UTF8.self).filter { !$0.isWhitespace }
        guard !id.isEmpty else {
            throw FirestoreError(code: .internal, message: "metadata server \(location) sent an empty project ID")
        }
        return id
    }

    /// `MetadataServerCredentials(host: ..., serviceAccount: ...)`.
    public var description: String {
        "MetadataServerCredentials(host: \(host), serviceAccount: \(serviceAccount))"
    }
}
