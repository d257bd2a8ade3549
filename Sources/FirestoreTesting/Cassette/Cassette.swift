import FirestoreREST
import Foundation

/// A recording of HTTP exchanges: the requests a client sent and the responses it got, in the order the
/// requests were sent, with their timing. ``RecordingTransport`` makes one from a live session and
/// ``ReplayTransport`` serves one back, so tests and demos run offline on real responses.
///
/// On disk a cassette is one pretty-printed JSON file with sorted keys (``jsonData()``), so a re-recording
/// diffs cleanly:
///
/// ```json
/// {
///   "format": "firestore-feed-cassette",
///   "interactions": [
///     {
///       "duration": 0.004,
///       "elapsed": 0.0,
///       "request": {
///         "body": "{\"structuredQuery\":{\"from\":[{\"collectionId\":\"fruits\"}]}}",
///         "headers": { "authorization": "Bearer <REDACTED>", "content-type": "application/json" },
///         "method": "POST",
///         "path": "/v1/projects/demo-fruits/databases/(default)/documents:runQuery"
///       },
///       "response": {
///         "body": "[{\n  \"readTime\": \"2026-11-29T12:43:15.453652Z\"\n}\n]",
///         "headers": { "content-type": "application/json" },
///         "status": 200
///       }
///     }
///   ],
///   "version": 1
/// }
/// ```
///
/// A body is a string: the request's as canonical JSON (sorted keys, no white space) when it is JSON, the
/// response's verbatim; a body that is not UTF-8 is stored as `bodyBase64` instead. Header names are lower
/// case; a header that occurred more than once holds an array of its values. A Listen feed's gRPC calls are kept
/// apart from the HTTP exchanges, in `listenSessions` (``ListenSession``).
public struct Cassette: Sendable, Hashable {
    /// The value of the `format` member that marks a cassette file.
    package static let formatName = "firestore-feed-cassette"
    /// The format version this library writes and reads.
    package static let formatVersion = 1

    /// The recorded exchanges, in the order their requests were sent.
    public var interactions: [Interaction]

    /// The recorded Listen calls (gRPC streams, not HTTP exchanges), in the order they were opened; in the file
    /// the member `listenSessions`, left out when empty, so a cassette without one reads and writes exactly as
    /// before. See ``ListenSession``.
    public var listenSessions: [ListenSession]

    /// A cassette holding `interactions` and `listenSessions`.
    public init(interactions: [Interaction] = [], listenSessions: [ListenSession] = []) {
        self.interactions = interactions
        self.listenSessions = listenSessions
    }

    /// One request and the response it got.
    public struct Interaction: Sendable, Hashable {
        /// The request as sent (secrets already replaced by placeholders in a saved cassette).
        public var request: Request
        /// The response as received.
        public var response: Response
        /// Seconds from the start of the previous interaction's request to the start of this one (0 for the
        /// first); never negative.
        public var elapsed: Double
        /// Seconds from sending the request to receiving the whole response; never negative.
        public var duration: Double
        /// When the request got no response (a timeout, a reset, a refused connection), what happened instead;
        /// ``response`` is then an unused placeholder. `nil` for an answered request. See ``Failure``.
        public var failure: Failure?

        /// An interaction; negative or non-finite times are stored as 0.
        public init(request: Request, response: Response, elapsed: Double = 0, duration: Double = 0) {
            self.request = request
            self.response = response
            self.elapsed = elapsed.isFinite ? max(0, elapsed) : 0
            self.duration = duration.isFinite ? max(0, duration) : 0
        }
    }

    /// A recorded request: method, path with query, header fields and body. The scheme, host and port are
    /// not kept: a cassette recorded on one emulator port replays on any.
    public struct Request: Sendable, Hashable {
        /// HTTP method in upper case: `GET`, `POST`, `PATCH`, `DELETE`.
        public var method: String
        /// The path and query string as sent, percent-encoded:
        /// `/v1/projects/p/databases/(default)/documents/fruits?pageSize=300`.
        public var path: String
        /// Header fields; names in lower case when recorded.
        public var headers: [HTTPHeader]
        /// The body bytes, or `nil` for none. A JSON body is kept canonical (sorted keys, no white space).
        public var body: Data?

        /// A request with every part given; `body` is kept as given.
        public init(method: String, path: String, headers: [HTTPHeader] = [], body: Data? = nil) {
            self.method = method
            self.path = path
            self.headers = headers
            self.body = body
        }

        /// The recorded form of `request`: the method in upper case, the URL without scheme and authority
        /// (`http://127.0.0.1:8080/v1/x?y=1` becomes `/v1/x?y=1`), every header with its name in lower case,
        /// and a JSON body in canonical form (`Cassette.canonicalBody(_:)`: keys sorted, no whitespace).
        public init(_ request: HTTPRequest) {
            self.init(
                method: request.method.uppercased(), path: Self.pathAndQuery(of: request.url),
                headers: request.headers.map { HTTPHeader($0.name.lowercased(), $0.value) },
                body: request.body.map(Cassette.canonicalBody))
        }

        /// The part of `url` from the first `/` after `scheme://authority`; `url` itself when it has no
        /// scheme (it is then already a path), `/` when it has no path.
        package static func pathAndQuery(of url: String) -> String {
            guard let schemeEnd = url.range(of: "://") else { return url }
            let rest = url[schemeEnd.upperBound...]
            guard let slash = rest.firstIndex(where: { $0 == "/" || $0 == "?" }) else { return "/" }
            let tail = String(rest[slash...])
            return tail.hasPrefix("?") ? "/" + tail : tail
        }

        /// The path without the query string.
        public var pathWithoutQuery: String {
            guard let question = path.firstIndex(of: "?") else { return path }
            return String(path[..<question])
        }

        /// The query string after `?`, or an empty string.
        public var query: String {
            guard let question = path.firstIndex(of: "?") else { return "" }
            return String(path[path.index(after: question)...])
        }

        /// The first value of header `name` (case-insensitive), or `nil`.
        public func header(_ name: String) -> String? {
            headers.first { $0.matches(name) }?.value
        }
    }

    /// A recorded response: status, header fields and the body verbatim (already decompressed).
    public struct Response: Sendable, Hashable {
        /// HTTP status code, e.g. 200, 404, 429.
        public var status: Int
        /// Header fields; names in lower case when recorded.
        public var headers: [HTTPHeader]
        /// The body bytes exactly as received.
        public var body: Data

        /// A response with every part given.
        public init(status: Int, headers: [HTTPHeader] = [], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The recorded form of `response`: every header with its name in lower case, the body verbatim.
        public init(_ response: HTTPResponse) {
            self.init(
                status: response.status, headers: response.headers.map { HTTPHeader($0.name.lowercased(), $0.value) },
                body: response.body)
        }

        /// This response as the transport protocol returns it.
        public var httpResponse: HTTPResponse {
            HTTPResponse(status: status, headers: headers, body: body)
        }

        /// The first value of header `name` (case-insensitive), or `nil`.
        public func header(_ name: String) -> String? {
            headers.first { $0.matches(name) }?.value
        }
    }

    /// `body` in canonical form when it is JSON (object keys sorted, no white space, numbers as the
    /// package's `JSONValue` writes them), so that key order and white space never matter; any other body
    /// unchanged. An empty body stays empty.
    /// - Complexity: O(n log k) for a body of n bytes with objects of at most k members.
    package static func canonicalBody(_ body: Data) -> Data {
        guard !body.isEmpty, let json = try? JSONValue.parse(body) else { return body }
        return json.serialized()
    }
}
