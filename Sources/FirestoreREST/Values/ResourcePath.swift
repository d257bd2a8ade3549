/// A slash-separated path below a database's `documents` root: `fruits` (a collection), `fruits/apple`
/// (a document), `fruits/apple/reviews/r1` (a nested document).
///
/// A segment (document or collection ID) may hold any character except `/` (Firestore docs, "Usage and limits":
/// document IDs), so paths are kept as segments and percent-encoded one by one for URLs (``urlEncoded``). An empty
/// segment, a segment that is `.` or `..`, and a `/` inside a segment are refused.
public struct ResourcePath: Sendable, Hashable, CustomStringConvertible {
    /// The IDs, outermost first.
    public let segments: [String]

    /// Paths are equal when their segments have the same UTF-8 bytes (Firestore compares IDs and field names
    /// byte for byte; Swift's `String ==` would merge NFC and NFD spellings).
    public static func == (lhs: ResourcePath, rhs: ResourcePath) -> Bool { lhs.segments.utf8Equals(rhs.segments) }

    public func hash(into hasher: inout Hasher) { segments.hashUTF8(into: &hasher) }

    /// The documents root itself (no segments).
    public static let root = ResourcePath(uncheckedSegments: [])

    /// Parses `"fruits/apple"`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming the path and the position of an empty segment
    ///   (`"a//b"`, a leading or trailing `/`) or of a `.`/`..` segment.
    public init(_ path: String) throws(FirestoreError) {
        if path.isEmpty {
            self = .root
            return
        }
        try self.init(segments: path.splitUTF8("/"))
    }

    /// A path from IDs given one by one.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when a segment is empty, is `.` or `..`, or holds `/`.
    public init(segments: [String]) throws(FirestoreError) {
        for (position, segment) in segments.enumerated() {
            if segment.isEmpty {
                throw .invalidArgument(
                    "invalid path \"\(segments.joined(separator: "/"))\": empty segment at position \(position)")
            }
            if segment == "." || segment == ".." {
                throw .invalidArgument("invalid ID \"\(segment)\": an ID cannot be \".\" or \"..\"")
            }
            if segment.containsUTF8("/") {
                throw .invalidArgument("invalid ID \"\(segment)\": an ID cannot contain \"/\"")
            }
        }
        self.segments = segments
    }

    init(uncheckedSegments segments: [String]) { self.segments = segments }

    /// Whether the path names a document (an even, non-zero number of segments).
    public var isDocument: Bool { !segments.isEmpty && segments.count % 2 == 0 }
    /// Whether the path names a collection (an odd number of segments).
    public var isCollection: Bool { segments.count % 2 == 1 }

    /// The last ID, or `""` for the root.
    public var lastSegment: String { segments.last ?? "" }

    /// The parent path (the root's parent is the root).
    public var parent: ResourcePath { ResourcePath(uncheckedSegments: Array(segments.dropLast())) }

    /// This path with one more ID.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid ID (see ``init(segments:)``).
    public func appending(_ id: String) throws(FirestoreError) -> ResourcePath {
        try ResourcePath(segments: segments + [id])
    }

    /// This path with the segments of a relative slash-separated path appended.
    /// - Throws: ``FirestoreError`` `.invalidArgument` as ``init(_:)``.
    public func appending(path: String) throws(FirestoreError) -> ResourcePath {
        try ResourcePath(segments: segments + ResourcePath(path).segments)
    }

    /// The IDs joined with `/`.
    public var description: String { segments.joined(separator: "/") }

    /// The path for a URL: each segment percent-encoded (every byte but `A-Z a-z 0-9 - . _ ~ ( )` becomes
    /// `%XX`), joined with `/`. `a#b` becomes `a%23b`, `50%off` `50%25off`, `hello world` `hello%20world`,
    /// `ü` `%C3%BC`.
    public var urlEncoded: String { segments.map(Self.percentEncode).joined(separator: "/") }

    /// Percent-encodes one path segment or query value (RFC 3986 unreserved characters and `(`, `)` stay).
    public static func percentEncode(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            let unreserved =
                (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E || byte == 0x5F || byte == 0x7E
                || byte == 0x28 || byte == 0x29
            if unreserved {
                output.append(byte)
            } else {
                output.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
