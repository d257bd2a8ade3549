import FirestoreREST
import Foundation

/// Decides which recorded request a new request is: a list of components that must all agree.
///
/// The default, ``standard``, compares method, path, query and the canonical JSON body: a matcher on
/// method and URL alone would answer every POST to `:runQuery` with the first recorded response (the test
/// `CassetteMatchingTests.postsToTheSameEndpointAreToldApartByTheirBody`).
/// Headers are never compared unless a ``Component/header(_:)`` component is added; `Authorization` in
/// particular differs between a live run and its scrubbed recording (see ``SecretScrubber``).
///
/// Both sides are compared in recorded form (``Cassette/Request/init(_:)``): lower-case header names, a
/// canonical JSON body.
public struct CassetteMatcher: Sendable {
    /// One thing two requests must agree on.
    public struct Component: Sendable {
        /// A short name used in mismatch messages: `method`, `path`, `query`, `body`, `header authorization`.
        public let name: String
        let describeDifference: @Sendable (_ recorded: Cassette.Request, _ sent: Cassette.Request) -> String?

        /// A component from a comparison that returns `nil` when the requests agree, else a description of
        /// what differs (shown in the error of an unmatched request).
        public init(
            name: String,
            difference: @escaping @Sendable (_ recorded: Cassette.Request, _ sent: Cassette.Request) -> String?
        ) {
            self.name = name
            self.describeDifference = difference
        }

        /// A component from an equality test.
        public static func custom(
            _ name: String,
            _ equal: @escaping @Sendable (_ recorded: Cassette.Request, _ sent: Cassette.Request) -> Bool
        ) -> Component {
            Component(name: name) { recorded, sent in equal(recorded, sent) ? nil : "\(name) differs" }
        }

        /// The HTTP method, ignoring case.
        public static let method = Component(name: "method") { recorded, sent in
            recorded.method.uppercased() == sent.method.uppercased()
                ? nil : "method: recorded \(recorded.method), sent \(sent.method)"
        }

        /// The path without the query. Percent-encoding of characters that need none (`%28default%29` for
        /// `(default)`) and the case of hex digits do not matter.
        public static let path = Component(name: "path") { recorded, sent in
            let (left, right) = (recorded.pathWithoutQuery, sent.pathWithoutQuery)
            return CassetteMatcher.normalizedURLPart(left) == CassetteMatcher.normalizedURLPart(right)
                ? nil : "path: recorded \(left), sent \(right)"
        }

        /// The query parameters, in any order; normalised as ``path``.
        public static let query = Component(name: "query") { recorded, sent in
            let (left, right) = (CassetteMatcher.queryItems(recorded.query), CassetteMatcher.queryItems(sent.query))
            return left == right
                ? nil
                : "query: recorded \(recorded.query.isEmpty ? "(none)" : recorded.query), "
                    + "sent \(sent.query.isEmpty ? "(none)" : sent.query)"
        }

        /// The body: two JSON bodies are equal when their canonical forms are (key order and white space do
        /// not matter); other bodies byte for byte; no body equals an empty body.
        public static let body = Component(name: "body") { recorded, sent in
            CassetteMatcher.bodyDifference(recorded: recorded.body ?? Data(), sent: sent.body ?? Data())
        }

        /// The values of header `name` (case-insensitive), all of them in order; a header absent on both sides
        /// agrees. With the default scrubber a recorded `Authorization` reads `Bearer <REDACTED>`, so this
        /// tells requests with a token from requests without one.
        public static func header(_ name: String) -> Component {
            Component(name: "header \(name.lowercased())") { recorded, sent in
                let left = recorded.headers.filter { $0.matches(name) }.map(\.value)
                let right = sent.headers.filter { $0.matches(name) }.map(\.value)
                func show(_ values: [String]) -> String {
                    values.isEmpty ? "(absent)" : values.map { "\"\($0)\"" }.joined(separator: ", ")
                }
                return left == right ? nil : "header \(name.lowercased()): recorded \(show(left)), sent \(show(right))"
            }
        }
    }

    /// The components; a request matches a recorded one when every component agrees.
    public var components: [Component]

    /// A matcher of `components`.
    public init(_ components: [Component]) {
        self.components = components
    }

    /// Method, path, query and canonical JSON body (`CassetteMatchingTests`).
    public static let standard = CassetteMatcher([.method, .path, .query, .body])

    /// ``standard`` plus the given headers, e.g. `CassetteMatcher.standard.adding(.header("authorization"))`.
    public func adding(_ component: Component) -> CassetteMatcher {
        CassetteMatcher(components + [component])
    }

    /// What differs between a recorded request and a sent one, one description per disagreeing component;
    /// empty when they match.
    /// - Complexity: O(n log n) in the size of the requests.
    public func differences(recorded: Cassette.Request, sent: Cassette.Request) -> [String] {
        components.compactMap { $0.describeDifference(recorded, sent) }
    }

    /// Whether `sent` matches `recorded`.
    public func matches(recorded: Cassette.Request, sent: Cassette.Request) -> Bool {
        components.allSatisfy { $0.describeDifference(recorded, sent) == nil }
    }

    // MARK: - Normalisation

    /// `text` with `%XX` escapes of unreserved characters and sub-delimiters decoded (RFC 3986 §2.3, §6.2.2)
    /// and other escapes' hex digits in upper case; everything else unchanged.
    static func normalizedURLPart(_ text: String) -> String {
        let bytes = Array(text.utf8)
        guard bytes.contains(UInt8(ascii: "%")) else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), index + 2 < bytes.count, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                let decoded = high << 4 | low
                if isSafeToDecode(decoded) {
                    output.append(decoded)
                } else {
                    output.append(contentsOf: [UInt8(ascii: "%"), upperHex(high), upperHex(low)])
                }
                index += 3
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The `name=value` items of a query string, normalised and sorted.
    static func queryItems(_ query: String) -> [String] {
        query.split(separator: "&", omittingEmptySubsequences: true).map { normalizedURLPart(String($0)) }.sorted()
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func upperHex(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "A") + nibble - 10
    }

    /// Letters, digits, `-._~` and the sub-delimiters `!$'()*,;` and `:@`; not `/?#[]&=+%` or anything else.
    static func isSafeToDecode(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~!$'()*,;:@".utf8.contains(byte)
        }
    }

    // MARK: - Bodies

    /// `nil` when the bodies agree; else where they first differ.
    static func bodyDifference(recorded: Data, sent: Data) -> String? {
        if recorded == sent { return nil }
        let left = recorded.isEmpty ? nil : try? JSONValue.parse(recorded)
        let right = sent.isEmpty ? nil : try? JSONValue.parse(sent)
        if let left, let right {
            if left == right { return nil }
            return "body " + (JSONDifference.first(recorded: left, sent: right, at: "") ?? "differs")
        }
        if recorded.isEmpty || sent.isEmpty {
            return "body: recorded \(recorded.isEmpty ? "none" : "\(recorded.count) bytes"), "
                + "sent \(sent.isEmpty ? "none" : "\(sent.count) bytes")"
        }
        let common = zip(recorded, sent).prefix { $0 == $1 }.count
        return "body differs at byte \(common): recorded \(recorded.count) bytes, sent \(sent.count) bytes"
    }
}

/// The first place where two JSON values differ, as a member path with both values.
enum JSONDifference {
    /// `at structuredQuery.where.fieldFilter.value.stringValue: recorded "open", sent "closed"`, or `nil` when
    /// the values are equal.
    /// - Complexity: O(n log k) in the size of the values.
    static func first(recorded: JSONValue, sent: JSONValue, at path: String) -> String? {
        switch (recorded, sent) {
        case (.object(let left), .object(let right)):
            for key in Set(left.keys).union(right.keys).sorted() {
                let memberPath = path.isEmpty ? key : path + "." + key
                switch (left[key], right[key]) {
                case (let l?, let r?):
                    if let difference = first(recorded: l, sent: r, at: memberPath) { return difference }
                case (let l?, nil):
                    return "at \(memberPath): recorded \(short(l)), sent nothing"
                case (nil, let r?):
                    return "at \(memberPath): recorded nothing, sent \(short(r))"
                case (nil, nil):
                    continue
                }
            }
            return nil
        case (.array(let left), .array(let right)):
            for (index, (l, r)) in zip(left, right).enumerated() {
                if let difference = first(recorded: l, sent: r, at: "\(path)[\(index)]") { return difference }
            }
            if left.count != right.count {
                return "at \(path.isEmpty ? "top level" : path): recorded \(left.count) elements, sent \(right.count)"
            }
            return nil
        default:
            if recorded == sent { return nil }
            return "at \(path.isEmpty ? "top level" : path): recorded \(short(recorded)), sent \(short(sent))"
        }
    }

    /// Compact JSON, cut to 80 characters.
    static func short(_ value: JSONValue) -> String {
        let text = value.serializedString()
        return text.count <= 80 ? text : String(text.prefix(77)) + "..."
    }
}
