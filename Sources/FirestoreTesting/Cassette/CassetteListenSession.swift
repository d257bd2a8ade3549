import FirestoreFeed
import FirestoreREST
import Foundation

extension Cassette {
    /// One recorded Listen call (`google.firestore.v1.Firestore/Listen`, a bidirectional gRPC stream): the
    /// request messages the client sent and the response messages the server sent, in the order they happened,
    /// each with its time since the call started, and how the call ended. ``RecordingTransport`` records one per
    /// call of a Listen feed; ``ReplayTransport`` plays it back, so the feed's `.listen` source runs offline.
    ///
    /// Messages are kept in the proto3 JSON form of `ListenRequest` and `ListenResponse` (protobuf's JSON
    /// mapping of `google/firestore/v1/firestore.proto`: lowerCamelCase names, enums by name, `bytes` such as
    /// `resumeToken` in base64, timestamps in RFC 3339, documents in their REST form, proto3 defaults left out),
    /// so a cassette stays readable and diffs cleanly:
    ///
    /// ```json
    /// {
    ///   "end": { "cancelledByClient": true },
    ///   "messages": [
    ///     { "at": 0.0, "request": { "addTarget": { "query": { … }, "targetId": 1 }, "database": "projects/p/databases/(default)" } },
    ///     { "at": 0.004, "response": { "targetChange": { "targetChangeType": "ADD", "targetIds": [1] } } },
    ///     { "at": 0.006, "response": { "targetChange": { "readTime": "2026-11-29T12:43:15.453652Z" } } }
    ///   ],
    ///   "metadata": { "authorization": "Bearer <REDACTED>", "google-cloud-resource-prefix": "projects/p/databases/(default)" },
    ///   "method": "/google.firestore.v1.Firestore/Listen"
    /// }
    /// ```
    public struct ListenSession: Sendable, Hashable {
        /// The gRPC method path, `/google.firestore.v1.Firestore/Listen`.
        public var method: String
        /// The call's request metadata (header names in lower case; secrets replaced by placeholders in a saved
        /// cassette).
        public var metadata: [HTTPHeader]
        /// The messages in the order they were sent or received.
        public var messages: [Message]
        /// How the call ended, or `nil` when it was still running when the cassette was saved (replayed like
        /// ``End/cancelledByClient``: the stream stays open).
        public var end: End?

        /// The default method path: Firestore's Listen RPC.
        public static let listenMethod = "/google.firestore.v1.Firestore/Listen"

        /// A session with every part given.
        public init(
            method: String = Self.listenMethod, metadata: [HTTPHeader] = [], messages: [Message] = [], end: End? = nil
        ) {
            self.method = method
            self.metadata = metadata
            self.messages = messages
            self.end = end
        }

        /// The request messages, in order.
        public var requests: [JSONValue] {
            messages.filter { $0.direction == .request }.map(\.body)
        }

        /// The response messages, in order.
        public var responses: [JSONValue] {
            messages.filter { $0.direction == .response }.map(\.body)
        }

        /// One message of the call.
        public struct Message: Sendable, Hashable {
            /// Who sent it.
            public enum Direction: String, Sendable, Hashable, CaseIterable {
                /// The client: a `ListenRequest`.
                case request
                /// The server: a `ListenResponse`.
                case response
            }

            /// Who sent it.
            public var direction: Direction
            /// The message in proto3 JSON (a `ListenRequest` or a `ListenResponse`).
            public var body: JSONValue
            /// Seconds from the start of the call to this message (sent, or taken by the client); never
            /// negative.
            public var at: Double
            /// For a response: how many of the cassette's ``Cassette/interactions`` the client had sent when the
            /// response arrived (their requests had started). Replayed with ``ReplayTransport/Ordering/session``,
            /// the response is held until those interactions were played, so a feed's snapshot follows the write
            /// that caused it, as it did when recorded. `nil` (cassettes recorded before, requests): no hold.
            public var afterInteractions: Int?

            /// A message; a negative or non-finite time is stored as 0, a negative `afterInteractions` as `nil`.
            public init(_ direction: Direction, _ body: JSONValue, at: Double = 0, afterInteractions: Int? = nil) {
                self.direction = direction
                self.body = body
                self.at = at.isFinite ? max(0, at) : 0
                self.afterInteractions = afterInteractions.flatMap { $0 >= 0 ? $0 : nil }
            }
        }

        /// How a recorded call ended.
        public enum End: Sendable, Hashable {
            /// The client ended it (its listeners left, or it cancelled the call). Replayed, the stream stays open
            /// after the last recorded response until the client ends it again.
            case cancelledByClient
            /// The server ended it with status `OK`. Replayed, the responses finish normally.
            case finished
            /// The call failed with `code` (a `google.rpc.Code` name such as `UNAVAILABLE`) and `message`: the
            /// server's status or a transport failure. Replayed, the responses throw that `FirestoreError`.
            case failed(code: FirestoreError.Code, message: String)
        }
    }
}

extension Cassette.ListenSession {
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "method": .string(method),
            "messages": .array(
                messages.map { message in
                    var members: [String: JSONValue] = [
                        "at": .double(message.at), message.direction.rawValue: message.body,
                    ]
                    if let count = message.afterInteractions { members["afterInteractions"] = .integer(Int64(count)) }
                    return .object(members)
                }),
        ]
        if !metadata.isEmpty { members["metadata"] = Cassette.headersJSON(metadata) }
        switch end {
        case nil: break
        case .cancelledByClient?: members["end"] = ["cancelledByClient": true]
        case .finished?: members["end"] = ["code": "OK"]
        case .failed(let code, let message)?:
            members["end"] = ["code": .string(code.rawValue), "message": .string(message)]
        }
        return .object(members)
    }
}

extension CassetteReader {
    func listenSession(_ value: JSONValue, at path: String) throws(FirestoreError) -> Cassette.ListenSession {
        let members = try object(value, at: path)
        let method = try string(members["method"], at: path + ".method")
        guard method.hasPrefix("/") else { throw fail(path + ".method", "expected a gRPC method path such as /p.S/M") }
        var messages: [Cassette.ListenSession.Message] = []
        for (index, element) in try array(members["messages"], at: path + ".messages").enumerated() {
            let place = "\(path).messages[\(index)]"
            let message = try object(element, at: place)
            let directions = Cassette.ListenSession.Message.Direction.allCases.filter { message[$0.rawValue] != nil }
            guard directions.count == 1, let direction = directions.first, let body = message[direction.rawValue]
            else { throw fail(place, "expected exactly one of request and response") }
            guard case .object = body else {
                throw fail(place + "." + direction.rawValue, "expected an object, found \(body.typeName)")
            }
            messages.append(
                .init(
                    direction, body, at: try seconds(message["at"], at: place + ".at"),
                    afterInteractions: try count(message["afterInteractions"], at: place + ".afterInteractions")))
        }
        return Cassette.ListenSession(
            method: method, metadata: try headers(members["metadata"], at: path + ".metadata"), messages: messages,
            end: try listenEnd(members["end"], at: path + ".end"))
    }

    func listenEnd(_ value: JSONValue?, at path: String) throws(FirestoreError) -> Cassette.ListenSession.End? {
        guard let value else { return nil }
        let members = try object(value, at: path)
        if members["cancelledByClient"] == .bool(true) { return .cancelledByClient }
        let code = try string(members["code"], at: path + ".code")
        if code == "OK" { return .finished }
        guard Self.statusNames.contains(code) else {
            throw fail(path + ".code", "expected OK or a google.rpc.Code name such as UNAVAILABLE, found \(code)")
        }
        let message = members["message"] == nil ? "" : try string(members["message"], at: path + ".message")
        return .failed(code: FirestoreError.Code(rawValue: code), message: message)
    }

    /// The `google.rpc.Code` names other than `OK` (`google/rpc/code.proto`).
    static let statusNames: Set<String> = [
        "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
        "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
        "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
    ]
}
