#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The one error type of the client: a canonical status ``Code`` (the gRPC codes of `google/rpc/code.proto`),
/// a human message, the HTTP status when a response arrived, and where it applies the console link to create
/// a missing composite index.
///
/// Errors come from the server (decoded from any of the three REST error body forms, see
/// ``FirestoreError/init(status:body:)``), from the transport (`.unavailable`, `.deadlineExceeded`,
/// `.cancelled`) and from the client's own checks before anything is sent (`.invalidArgument`).
public struct FirestoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A canonical status code. Compare with the static constants: `error.code == .notFound`.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The REST `status` string, e.g. `NOT_FOUND`.
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue }

        public static let cancelled = Code(rawValue: "CANCELLED")
        public static let unknown = Code(rawValue: "UNKNOWN")
        public static let invalidArgument = Code(rawValue: "INVALID_ARGUMENT")
        public static let deadlineExceeded = Code(rawValue: "DEADLINE_EXCEEDED")
        public static let notFound = Code(rawValue: "NOT_FOUND")
        public static let alreadyExists = Code(rawValue: "ALREADY_EXISTS")
        public static let permissionDenied = Code(rawValue: "PERMISSION_DENIED")
        public static let resourceExhausted = Code(rawValue: "RESOURCE_EXHAUSTED")
        public static let failedPrecondition = Code(rawValue: "FAILED_PRECONDITION")
        public static let aborted = Code(rawValue: "ABORTED")
        public static let outOfRange = Code(rawValue: "OUT_OF_RANGE")
        public static let unimplemented = Code(rawValue: "UNIMPLEMENTED")
        public static let `internal` = Code(rawValue: "INTERNAL")
        public static let unavailable = Code(rawValue: "UNAVAILABLE")
        public static let dataLoss = Code(rawValue: "DATA_LOSS")
        public static let unauthenticated = Code(rawValue: "UNAUTHENTICATED")

        /// The code in the kebab-case the Firebase SDKs print, e.g. `not-found`.
        public var name: String { rawValue.lowercased().replacing("_", with: "-") }

        public var description: String { name }

        /// The canonical code an HTTP status maps to when the body names none (`google/rpc/code.proto`).
        package static func forHTTPStatus(_ status: Int) -> Code {
            switch status {
            case 400: return .invalidArgument
            case 401: return .unauthenticated
            case 403: return .permissionDenied
            case 404: return .notFound
            case 409: return .aborted
            case 429: return .resourceExhausted
            case 499: return .cancelled
            case 501: return .unimplemented
            case 503: return .unavailable
            case 504: return .deadlineExceeded
            case 500..<600: return .internal
            default: return .unknown
            }
        }
    }

    /// The canonical status code.
    public var code: Code
    /// What went wrong, in words; for a server error the server's message. Credentials in it (a bearer token, a
    /// signed JWT assertion, an OAuth refresh token or client secret, an API key, a private key, the value after a
    /// credential's name) are replaced with `<REDACTED>` whenever it is set, so a secret a server echoes back never
    /// reaches a log or the CLI's stderr (`ErrorRedactionTests`).
    public var message: String {
        get { redactedMessage }
        set { redactedMessage = Redaction.text(newValue) }
    }
    private var redactedMessage: String
    /// The HTTP status of the response, or `nil` when no response arrived or the client refused first.
    public var httpStatus: Int?
    /// The error this one stands for when it comes from outside the client (a decoding error, a task's
    /// cancellation, a failure of a user's `Codable` type, a file error), kept as it was thrown, as grpc-swift's
    /// `RPCError.cause` does; `nil` for the client's own errors and the server's. Not part of equality.
    public var cause: (any Error)?
    /// For a missing composite index (`FAILED_PRECONDITION` in production), the console link to create it, as
    /// text. ``indexCreationURL`` gives the same link as a `URL`.
    public var indexURL: String? {
        guard code == .failedPrecondition, let range = message.firstRange(of: "https://console.firebase.google.com/")
        else { return nil }
        let tail = message[range.lowerBound...]
        var link = Substring(tail.prefix { !$0.isWhitespace && $0 != "\"" && $0 != "'" && $0 != "<" && $0 != ">" })
        // Sentence punctuation after the link ("... create_composite=Egh0ZXN0.") is not part of it; base64url
        // payloads end in letters, digits, "-", "_" or "=".
        while let last = link.last, ".,;:)]".contains(last) { link = link.dropLast() }
        return String(link)
    }

    /// For a missing composite index, the console link to create it (Firestore docs, "Manage indexes"): the
    /// `https://console.firebase.google.com/...indexes?create_composite=...` URL found in the server's message,
    /// in either the current (`/v1/r/project/<p>/firestore/indexes`) or the older
    /// (`/project/<p>/database/firestore/indexes`) form. `nil` for any other error or when the message holds no
    /// well-formed console link.
    public var indexCreationURL: URL? {
        guard let text = indexURL, let url = URL(string: text), url.scheme == "https",
            url.host == "console.firebase.google.com", url.path.contains("/indexes")
        else { return nil }
        return url
    }

    /// How long the server asked the client to wait before trying again (the `Retry-After` header of a 429
    /// or 503, in whole seconds or as an HTTP date), or `nil` when it did not say.
    public var retryAfter: Duration?

    /// Whether the server itself named the status (a `google.rpc.Status` body), as opposed to a bare HTTP
    /// status from a body that was not a Firestore error (a proxy's HTML page, an empty body). Only a
    /// server-named `NOT_FOUND` means "no such document".
    public package(set) var isServerStatus: Bool = false

    /// Whether the transport knows the request never reached the server (the connection, DNS lookup or TLS
    /// handshake failed first), so even a non-idempotent request such as a `commit` can be sent again safely.
    package var requestWasNotSent: Bool = false

    /// How the transport failed when no response arrived (a timeout, a reset, a refused connection), or `nil`: a
    /// server's answer, or a failure a recording does not replay.
    package var transportFailure: TransportFailure?

    /// Whether the failure shows that the server, or a proxy in the way, cannot carry gRPC over HTTP/2: TLS agreed
    /// on another protocol (ALPN), the answer was HTTP/1.x, a 426 or 505 status, `HTTP_1_1_REQUIRED`, or no HTTP/2
    /// settings ever came. A Listen feed falls back to polling on such an error.
    package var lacksHTTP2: Bool = false

    /// Whether the failure may mean that HTTP/2 cannot work, without proving it: the connection closed before the
    /// server's HTTP/2 settings came (an HTTP/1.1 server does that, and so does one that restarts). A Listen feed falls
    /// back to polling when it sees this twice in a row before any answer.
    package var mayLackHTTP2: Bool = false

    /// Whether sending the request again cannot help whatever the code says: a response larger than the
    /// transport's size cap (`.resourceExhausted`) would only be downloaded and refused again.
    package var isNeverRetried: Bool = false

    /// An error with `code` and `message` (credentials in it replaced, see ``message``) and the response's HTTP
    /// status when there was one.
    public init(code: Code, message: String, httpStatus: Int? = nil) {
        self.code = code
        self.redactedMessage = Redaction.text(message)
        self.httpStatus = httpStatus
    }

    /// `error` as a ``FirestoreError``: itself when it is one; `.cancelled` for a task's `CancellationError`; else
    /// `.unknown` with `error`'s description as the message and `error` as the ``cause``.
    public init(wrapping error: any Error) {
        if let error = error as? FirestoreError {
            self = error
        } else if error is CancellationError {
            self.init(code: .cancelled, message: "cancelled")
            cause = error
        } else {
            self.init(code: .unknown, message: "\(error)")
            cause = error
        }
    }

    /// This error with `known` (the credentials the request it answers carried, at least 8 bytes each) also
    /// replaced in its message, wherever they appear (``Redaction/text(_:known:)``).
    package func redacting(known: some Sequence<String>) -> FirestoreError {
        var copy = self
        copy.redactedMessage = Redaction.text(message, known: known)
        return copy
    }

    /// Errors are equal when code, message and HTTP status are.
    public static func == (lhs: FirestoreError, rhs: FirestoreError) -> Bool {
        lhs.code == rhs.code && lhs.message == rhs.message && lhs.httpStatus == rhs.httpStatus
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
        hasher.combine(httpStatus)
    }

    /// `not-found (HTTP 404): Document ... not found`. The message is printed without the white space and line
    /// breaks around it (a security-rules denial from the emulator starts with a line break:
    /// `FirestoreErrorTests.descriptionTrimsTheMessage`); ``message`` keeps the server's text as it came.
    public var description: String {
        var text = code.name
        if let httpStatus { text += " (HTTP \(httpStatus))" }
        let trimmed = message.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()
        return trimmed.isEmpty ? text : text + ": " + String(trimmed)
    }

    /// An `.invalidArgument` error the client raises itself, before sending anything.
    public static func invalidArgument(_ message: String) -> FirestoreError {
        FirestoreError(code: .invalidArgument, message: message)
    }
}
