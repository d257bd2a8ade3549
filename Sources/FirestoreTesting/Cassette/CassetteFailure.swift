import FirestoreREST
import Foundation

extension Cassette {
    /// A request that got no response: a timeout, a reset connection, a refused one. ``RecordingTransport`` records
    /// it in place of the response and ``ReplayTransport`` raises it again as the same `FirestoreError` (code and
    /// message, with the replayed request's address in place of the recorded one), so that a client's retry path
    /// can be tested offline (`RecordedFailuresReplayTests`).
    ///
    /// In the file an interaction holds `failure` instead of `response` (old cassettes, which have none, read and
    /// write back byte for byte):
    ///
    /// ```json
    /// "failure": {
    ///   "code": "UNAVAILABLE",
    ///   "kind": "reset",
    ///   "message": "failed to receive the response: http://<HOST>:<PORT>/v1/projects/demo-failures/... (Recv failure: Connection reset by peer)"
    /// }
    /// ```
    ///
    /// The message keeps the transport's words; the request's address is written `http://<HOST>:<PORT>/path`
    /// (`<HOST>`, `<PORT>`), so a cassette names no machine. Only the failures of
    /// `Kind` are recorded; any other error (TLS verification, a cancelled task, a body over the size cap) is passed
    /// on and not recorded.
    public struct Failure: Sendable, Hashable {
        /// What happened to the request.
        public enum Kind: String, Sendable, Hashable, CaseIterable {
            /// The request timed out (`.deadlineExceeded`).
            case timeout
            /// The transfer stalled below the transport's lowest speed (`.deadlineExceeded`).
            case stalled
            /// The connection was reset or closed before a whole response arrived (`.unavailable`).
            case reset
            /// The connection could not be made (`.unavailable`; nothing was sent, so even a commit is retried).
            case refused
            /// The host name could not be resolved (`.unavailable`; nothing was sent).
            case unresolved
            /// The response ended before its announced length (`.unavailable`).
            case truncated
        }

        /// Stands for the request's host in ``message``.
        package static let hostPlaceholder = "<HOST>"
        /// Stands for the request's port in ``message``.
        package static let portPlaceholder = "<PORT>"

        /// What happened.
        public var kind: Kind
        /// The error's code.
        public var code: FirestoreError.Code
        /// The error's message, the request's host and port replaced by `<HOST>` and `<PORT>`.
        public var message: String

        /// A failure with every part given.
        public init(kind: Kind, code: FirestoreError.Code, message: String) {
            self.kind = kind
            self.code = code
            self.message = message
        }

        /// The recorded form of `error`, which `request` got from a live transport; `nil` when `error` is not a
        /// transport failure of one of the `Kind`s (then nothing is recorded).
        public init?(recording error: any Error, of request: HTTPRequest) {
            guard let error = error as? FirestoreError, let transport = error.transportFailure,
                let kind = Kind(rawValue: transport.rawValue)
            else { return nil }
            var message = error.message
            if let (host, port) = Self.hostAndPort(of: request.url) {
                for (recorded, placeholder) in [
                    ("\(host):\(port)", "\(Self.hostPlaceholder):\(Self.portPlaceholder)"),
                    ("\(host) port \(port)", "\(Self.hostPlaceholder) port \(Self.portPlaceholder)"),
                    (host, Self.hostPlaceholder),
                ] {
                    message = message.replacingOccurrences(of: recorded, with: placeholder)
                }
            }
            self.init(kind: kind, code: error.code, message: message)
        }

        /// The error `request` gets when this failure is replayed: ``code``, and ``message`` with the request's host
        /// and port in place of the placeholders; a `Kind.refused` or `Kind.unresolved` one says that nothing was
        /// sent, as the live transport's error does, so the client may send even a commit again.
        public func error(replaying request: HTTPRequest) -> FirestoreError {
            var text = message
            if let (host, port) = Self.hostAndPort(of: request.url) {
                text = text.replacingOccurrences(of: Self.hostPlaceholder, with: host)
                    .replacingOccurrences(of: Self.portPlaceholder, with: port)
            }
            var error = FirestoreError(code: code, message: text)
            let transport = TransportFailure(rawValue: kind.rawValue)
            error.transportFailure = transport
            error.requestWasNotSent = transport?.requestWasNotSent ?? false
            return error
        }

        /// The host and port of `url` as error messages write them (`Redaction`: the scheme's default port written
        /// out), or `nil` for a URL without an authority.
        static func hostAndPort(of url: String) -> (String, String)? {
            let redacted = Redaction.url(url)
            guard let separator = redacted.firstRange(of: "://") else { return nil }
            let authority = redacted[separator.upperBound...].prefix { $0 != "/" }
            guard let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") else { return nil }
            let host = authority[..<colon]
            let port = authority[authority.index(after: colon)...]
            guard !host.isEmpty, !port.isEmpty else { return nil }
            return (String(host), String(port))
        }
    }
}

extension Cassette.Interaction {
    /// A request that got no response but `failure`; ``response`` is then an empty placeholder (status 0), never
    /// served.
    public init(request: Cassette.Request, failure: Cassette.Failure, elapsed: Double = 0, duration: Double = 0) {
        self.init(request: request, response: Cassette.Response(status: 0), elapsed: elapsed, duration: duration)
        self.failure = failure
    }

    /// What a replay of this interaction gives `request`: the recorded response, or the recorded failure thrown.
    /// - Throws: `FirestoreError`, ``Cassette/Failure/error(replaying:)`` of ``failure``.
    func replayed(to request: HTTPRequest) throws(FirestoreError) -> HTTPResponse {
        if let failure { throw failure.error(replaying: request) }
        return response.httpResponse
    }
}

extension Cassette.Failure {
    /// `{"code", "kind", "message"}`.
    var json: JSONValue {
        .object(["code": .string(code.rawValue), "kind": .string(kind.rawValue), "message": .string(message)])
    }
}

extension CassetteReader {
    /// A recorded failure: `kind` one of ``Cassette/Failure/Kind``, `code` a status string, `message` a string.
    func failure(_ value: JSONValue, at path: String) throws(FirestoreError) -> Cassette.Failure {
        let members = try object(value, at: path)
        let kindText = try string(members["kind"], at: path + ".kind")
        guard let kind = Cassette.Failure.Kind(rawValue: kindText) else {
            let known = Cassette.Failure.Kind.allCases.map(\.rawValue).joined(separator: ", ")
            throw fail(path + ".kind", "unknown kind \"\(kindText)\" (known: \(known))")
        }
        let code = try string(members["code"], at: path + ".code")
        guard !code.isEmpty else { throw fail(path + ".code", "empty") }
        return Cassette.Failure(
            kind: kind, code: FirestoreError.Code(rawValue: code),
            message: try string(members["message"], at: path + ".message"))
    }
}
