import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Requests to OAuth 2 token endpoints (`token_uri`, the metadata server) and decoding of their answers
/// (RFC 6749 §5.1): `{"access_token":"...","expires_in":3599,"token_type":"Bearer"}`.
enum OAuthTokenEndpoint {
    /// The token endpoint of Google's OAuth 2 server, the default `token_uri`.
    static let googleTokenURI = "https://oauth2.googleapis.com/token"

    /// `application/x-www-form-urlencoded` text of `pairs`: every byte outside `A-Z a-z 0-9 - . _ ~`
    /// percent-encoded (so `+`, `&`, `=` and `/` inside values survive).
    static func formEncoded(_ pairs: [(String, String)]) -> Data {
        func encode(_ text: String) -> String {
            var output = ""
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                    UInt8(ascii: "~"):
                    output.unicodeScalars.append(Unicode.Scalar(byte))
                default:
                    let hex = Array("0123456789ABCDEF")
                    output += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0x0F)])
                }
            }
            return output
        }
        return Data(pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&").utf8)
    }

    /// POSTs a form to a token endpoint and decodes the token.
    /// - Parameters:
    ///   - url: the endpoint, e.g. `https://oauth2.googleapis.com/token`.
    ///   - form: the form fields (the grant); never shown in errors.
    ///   - transport: the transport to use.
    ///   - now: the wall clock, to turn `expires_in` into an expiry time.
    /// - Throws: ``FirestoreError`` as ``decode(_:endpoint:issuedAt:)``, or the transport's error (message prefixed
    ///   with `token request: `).
    static func requestToken(
        url: String, form: [(String, String)], transport: any HTTPTransport, now: @Sendable () -> Date
    ) async throws -> AccessToken {
        let request = HTTPRequest(
            method: "POST", url: url,
            headers: [
                HTTPHeader("Content-Type", "application/x-www-form-urlencoded"),
                HTTPHeader("Accept", "application/json"),
            ],
            body: formEncoded(form))
        return try await send(request, transport: transport, now: now)
    }

    /// Sends `request` (a token request of any shape) and decodes the token.
    static func send(_ request: HTTPRequest, transport: any HTTPTransport, now: @Sendable () -> Date) async throws
        -> AccessToken
    {
        let issuedAt = now()
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            var error = error
            error.message = "token request: " + error.message
            throw error
        }
        return try decode(
            response, endpoint: Redaction.url(request.url), issuedAt: issuedAt, known: request.credentialValues)
    }

    /// The token of a token-endpoint response.
    ///
    /// - 2xx: `access_token` (a non-empty string) is required; `expires_in` (seconds, a number or a decimal
    ///   string) gives the expiry from `issuedAt`, unknown when absent; `token_type`, when present, must be
    ///   `Bearer` (any case).
    /// - 400 and 401 (`invalid_grant`, `invalid_client`, ...) → `.unauthenticated`; 403 → `.permissionDenied`;
    ///   404 → `.notFound`; 429 → `.resourceExhausted`; 5xx → `.unavailable`; others → `.unknown`.
    ///   The message names the endpoint, the HTTP status and the OAuth `error` and `error_description` members;
    ///   nothing else of the body is shown, and in those the credentials (`known`, the ones the request sent, and
    ///   any of a credential's shape) are replaced before they are cut to length (``Redaction/text(_:known:)``).
    /// - Throws: ``FirestoreError`` as above, or `.unauthenticated` for a 2xx body without a usable token.
    static func decode(
        _ response: HTTPResponse, endpoint: String, issuedAt: Date, known: Set<String> = []
    ) throws(FirestoreError) -> AccessToken {
        let json = try? JSONValue.parse(response.body)
        guard (200..<300).contains(response.status) else {
            let code: FirestoreError.Code
            switch response.status {
            case 400, 401: code = .unauthenticated
            case 403: code = .permissionDenied
            case 404: code = .notFound
            case 429: code = .resourceExhausted
            case 500..<600: code = .unavailable
            default: code = .unknown
            }
            var reason = ""
            if let error = json?["error"]?.stringValue {
                reason = ": " + String(Redaction.text(error, known: known).prefix(100))
                if let detail = json?["error_description"]?.stringValue, !detail.isEmpty {
                    reason += ": " + String(Redaction.text(detail, known: known).prefix(200))
                }
            }
            throw FirestoreError(
                code: code, message: "token request to \(endpoint) failed with HTTP \(response.status)\(reason)",
                httpStatus: response.status)
        }
        guard let json, case .string(let token)? = json["access_token"], !token.isEmpty else {
            throw FirestoreError(
                code: .unauthenticated, message: "token response from \(endpoint) has no access_token",
                httpStatus: response.status)
        }
        if let type = json["token_type"], type.stringValue?.lowercased() != "bearer" {
            throw FirestoreError(
                code: .unauthenticated,
                message: "token response from \(endpoint) has token_type \(type.serializedString()), not Bearer",
                httpStatus: response.status)
        }
        let lifetime: Double?
        switch json["expires_in"] {
        case .integer(let seconds)?: lifetime = Double(seconds)
        case .double(let seconds)?: lifetime = seconds.isFinite ? seconds : nil
        case .string(let text)?: lifetime = Double(text).flatMap { $0.isFinite ? $0 : nil }
        default: lifetime = nil
        }
        return AccessToken(value: token, expiresAt: lifetime.map { issuedAt.addingTimeInterval(max($0, 0)) })
    }
}
