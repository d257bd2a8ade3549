import FirestoreWire

/// A slash-separated path below a database's `documents` root: `fruits` (a collection), `fruits/apple`
/// (a document), `fruits/apple/reviews/r1` (a nested document).
///
/// A segment (document or collection ID) may hold any character except `/` (Firestore docs, "Usage and limits":
/// document IDs), so paths are kept as segments and percent-encoded one by one for URLs (``urlEncoded``). An empty
/// segment, a segment that is `.` or `..`, and a `/` inside a segment are refused; so is a NUL (U+0000) in an ID
/// the caller gives, but not in an ID the server names (``DatabaseID/path(ofResourceName:)``).
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
    ///   (`"a//b"`, a leading or trailing `/`), or naming a `.`/`..` segment or one holding NUL.
    public init(_ path: String) throws(FirestoreError) {
        if path.isEmpty {
            self = .root
            return
        }
        try self.init(segments: path.splitUTF8("/"))
    }

    /// A path from IDs given one by one.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when a segment is empty, is `.` or `..`, or holds `/` or
    ///   NUL (U+0000); a NUL is named with the segment, its position and the path, written as `\u{0}`.
    public init(segments: [String]) throws(FirestoreError) {
        try self.init(segments: segments, refusingNulFrom: 0)
    }

    /// A path the server named (a document's `name`, a reference value, an ID `listCollectionIds` returned):
    /// checked as ``init(_:)``, except that a NUL is kept.
    init(serverPath path: String) throws(FirestoreError) {
        let segments = path.isEmpty ? [] : path.splitUTF8("/")
        try self.init(segments: segments, refusingNulFrom: segments.count)
    }

    /// `segments`, checked as ``init(segments:)`` but for a NUL before position `first`.
    ///
    /// A NUL is refused, before anything is sent, in the IDs the caller gives (issue 34): such an ID cannot be
    /// passed on a command line (a NUL ends a C string), typed or seen, so a document named with it could not
    /// be got, set or deleted by its path afterwards. The IDs before `first` were checked already or named by
    /// the server, which keeps a NUL (the emulator takes one): a document another client named so is still
    /// read, exported and deleted.
    init(segments: [String], refusingNulFrom first: Int) throws(FirestoreError) {
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
            // The message writes the NUL out: a terminal shows nothing for it.
            if position >= first, segment.utf8.contains(0) {
                let path = MessageQuote.quoted(segments.joined(separator: "/"), escapingControls: true)
                throw .invalidArgument(
                    "invalid ID \(MessageQuote.quoted(segment, escapingControls: true)) at position \(position) of "
                        + "path \(path): an ID cannot contain NUL (U+0000)")
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
        try ResourcePath(segments: segments + [id], refusingNulFrom: segments.count)
    }

    /// This path with one more ID the server named (as ``init(serverPath:)``: a NUL is kept).
    func appending(serverID id: String) throws(FirestoreError) -> ResourcePath {
        try ResourcePath(segments: segments + [id], refusingNulFrom: segments.count + 1)
    }

    /// This path with the segments of a relative slash-separated path appended.
    /// - Throws: ``FirestoreError`` `.invalidArgument` as ``init(_:)``.
    public func appending(path: String) throws(FirestoreError) -> ResourcePath {
        try ResourcePath(
            segments: segments + (path.isEmpty ? [] : path.splitUTF8("/")), refusingNulFrom: segments.count)
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
