import FirestoreWire

/// A path to a field inside a document: a list of segments, each a field name that may hold any character.
///
/// The string form joins segments with `.` and wraps every segment that is not `[A-Za-z_][A-Za-z0-9_]*` in
/// backticks, escaping a backtick and `\` with a backslash (REST reference: `DocumentMask`; conformance
/// `update-quoting.json`; `FieldPathTests`): the segment `a.b` is written as \`a.b\`, `["profile", "age"]`
/// as `profile.age`, the segment `123abc` as \`123abc\`.
public struct FieldPath: Sendable, Hashable, CustomStringConvertible {
    /// The field names, outermost first. Never empty, no segment empty.
    public let segments: [String]

    /// Paths are equal when their segments have the same UTF-8 bytes (Firestore compares IDs and field names
    /// byte for byte; Swift's `String ==` would merge NFC and NFD spellings).
    public static func == (lhs: FieldPath, rhs: FieldPath) -> Bool { lhs.segments.utf8Equals(rhs.segments) }

    public func hash(into hasher: inout Hasher) { segments.hashUTF8(into: &hasher) }

    /// The document's key, `__name__`; a filter or cursor on it takes a `referenceValue`.
    public static let documentID = FieldPath(uncheckedSegments: ["__name__"])

    /// A path from literal segments; no segment is split at dots.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when `segments` is empty or a segment is empty.
    public init(_ segments: [String]) throws(FirestoreError) {
        guard !segments.isEmpty else { throw .invalidArgument("a field path needs at least one segment") }
        if let position = segments.firstIndex(where: \.isEmpty) {
            throw .invalidArgument("field path \(segments) has an empty segment at position \(position)")
        }
        self.segments = segments
    }

    init(uncheckedSegments segments: [String]) { self.segments = segments }

    /// Parses a dotted path as the SDKs' `whereField("a.b")` does: split at every `.`, with no quoting.
    /// A literal name that holds a dot needs ``init(_:)``.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an empty path or an empty segment (`"a..b"`); the
    ///   message quotes at most the path's first 80 characters.
    public init(dotted text: String) throws(FirestoreError) {
        if text == "__name__" {
            self = .documentID
            return
        }
        let parts = text.splitUTF8(".")
        guard !text.isEmpty, !parts.contains(where: \.isEmpty) else {
            throw .invalidArgument("invalid field path \(MessageQuote.quoted(text)): empty segment")
        }
        self.segments = parts
    }

    /// Parses the quoted string form (a.\`b.c\`.d is three segments), the inverse of ``description``.
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming the byte offset for an unterminated quote, a
    ///   stray character after a quoted segment, or an empty segment; the message quotes at most the path's first
    ///   80 characters.
    public init(quoted text: String) throws(FirestoreError) {
        var segments: [String] = []
        var current: [UInt8] = []
        var quotedSegment = false
        var index = 0
        let bytes = Array(text.utf8)
        func fail(_ reason: String) -> FirestoreError {
            .invalidArgument("invalid field path \(MessageQuote.quoted(text)) at byte \(index): \(reason)")
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "`") && current.isEmpty && !quotedSegment {
                index += 1
                var closed = false
                while index < bytes.count {
                    let inner = bytes[index]
                    if inner == UInt8(ascii: "\\") {
                        index += 1
                        guard index < bytes.count else { break }
                        current.append(bytes[index])
                    } else if inner == UInt8(ascii: "`") {
                        closed = true
                        break
                    } else {
                        current.append(inner)
                    }
                    index += 1
                }
                guard closed else { throw fail("unterminated backtick") }
                quotedSegment = true
                index += 1
                if index < bytes.count, bytes[index] != UInt8(ascii: ".") {
                    throw fail("expected '.' after a quoted segment")
                }
                continue
            }
            if byte == UInt8(ascii: ".") {
                guard !current.isEmpty else { throw fail("empty segment") }
                segments.append(String(decoding: current, as: UTF8.self))
                current = []
                quotedSegment = false
            } else {
                current.append(byte)
            }
            index += 1
        }
        guard !current.isEmpty else { throw fail("empty segment") }
        segments.append(String(decoding: current, as: UTF8.self))
        self.segments = segments
    }

    /// The quoted string form the REST API takes in `fieldPath` and `updateMask.fieldPaths`.
    public var description: String { segments.map(Self.quoteSegment).joined(separator: ".") }

    /// Whether this is `__name__`.
    public var isDocumentID: Bool { segments == ["__name__"] }

    /// One segment as the REST API writes it: bare when it matches `[A-Za-z_][A-Za-z0-9_]*`, else in
    /// backticks with a backtick and `\` escaped.
    package static func quoteSegment(_ segment: String) -> String {
        var simple = !segment.isEmpty
        for (position, byte) in segment.utf8.enumerated() {
            let isLetter = (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F
            let isDigit = byte >= 0x30 && byte <= 0x39
            if !(isLetter || (position > 0 && isDigit)) {
                simple = false
                break
            }
        }
        if simple { return segment }
        var quoted = "`"
        for scalar in segment.unicodeScalars {
            if scalar == "`" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "`"
    }
}
