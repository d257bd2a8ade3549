#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Reads protobuf wire-format fields from one message body, checking every length against the end of the
/// enclosing message (protobuf encoding guide: varints, tags, `fixed64`, `fixed32`, length-delimited
/// records).
///
/// The reader walks a borrowed buffer; it exists only inside ``read(_:message:_:)``. Nested messages are read
/// in place by ``readMessage(_:_:_:)``, which narrows the readable end to the nested payload and records the
/// field's name, so an error names where it happened and the byte offset in the outermost body:
/// `ListenResponse.document_change.document.fields: length 900 past the end at byte 37`. The offset is
/// where the offending item starts: a varint's first byte, a tag, a length prefix, or for text the first
/// byte of the ill-formed UTF-8 sequence.
///
/// Unknown fields of wire types 0, 1, 2 and 5 are skipped with ``skip(_:)``; the group wire types 3 and 4
/// (proto2 only, never used by Firestore) are an error, as are field number 0, wire types 6 and 7, and
/// nesting deeper than ``maximumDepth``.
///
/// Every failure is a thrown ``FirestoreError`` with code `.dataLoss`; no input traps.
package struct ProtobufReader {
    /// Where the reader is in the message path, for error messages.
    package enum PathElement {
        /// A field: `.document` (or the message name at the root).
        case field(StaticString)
        /// A map entry's value under its key: `["name"]`.
        case key(String)
        /// An element of a repeated field: `[2]`.
        case index(Int)
    }

    /// How many messages may be nested inside each other (the outermost counts as 0). Firestore allows 20
    /// levels of maps (three messages each on the wire), so real data stays far below; the bound keeps a
    /// hostile input from exhausting the stack.
    package static let maximumDepth = 200

    private let buffer: UnsafeBufferPointer<UInt8>
    /// The offset of the next byte to read.
    package private(set) var position: Int = 0
    /// The offset just after the message being read.
    package private(set) var end: Int
    private var path: [PathElement]

    private init(buffer: UnsafeBufferPointer<UInt8>, message: StaticString) {
        self.buffer = buffer
        self.end = buffer.count
        self.path = [.field(message)]
    }

    /// Runs `body` with a reader over `bytes`, the body of one message of type `message`, and returns its
    /// result. The reader must not escape `body`.
    ///
    /// - Parameters:
    ///   - bytes: one serialized message (no gRPC frame header).
    ///   - message: the proto message name that starts every error path, e.g. `"ListenResponse"`.
    ///   - body: reads the fields, usually `while let field = try reader.nextField() { ... }`.
    /// - Throws: ``FirestoreError`` `.dataLoss` from `body`'s reads.
    package static func read<T>(
        _ bytes: [UInt8], message: StaticString, _ body: (inout ProtobufReader) throws(FirestoreError) -> T
    ) throws(FirestoreError) -> T {
        try bytes.withUnsafeBufferPointer { (buffer) throws(FirestoreError) -> T in
            var reader = ProtobufReader(buffer: buffer, message: message)
            return try body(&reader)
        }
    }

    /// Whether every byte of the current message has been read.
    package var isAtEnd: Bool { position >= end }

    // MARK: - Tags

    /// Reads the next field tag of the current message, or returns `nil` at its end.
    /// - Throws: ``FirestoreError`` `.dataLoss` for a truncated or overlong tag varint, field number 0, a
    ///   group wire type (3, 4) or an undefined one (6, 7).
    package mutating func nextField() throws(FirestoreError) -> ProtobufField? {
        guard position < end else { return nil }
        let offset = position
        let tag = try readVarint(nil)
        let number = tag >> 3
        guard number != 0 else { throw failure("field number 0", at: offset) }
        guard number <= 536_870_911 else { throw failure("field number \(number) is out of range", at: offset) }
        let rawType = UInt8(truncatingIfNeeded: tag & 7)
        guard let wireType = ProtobufWireType(rawValue: rawType), wireType != .startGroup, wireType != .endGroup
        else {
            let kind =
                rawType == 3 || rawType == 4
                ? "wire type \(rawType) (a proto2 group, unsupported)" : "undefined wire type \(rawType)"
            throw failure("\(kind) for field \(number)", at: offset)
        }
        return ProtobufField(number: UInt32(number), wireType: wireType, offset: offset)
    }

    /// Skips the payload of `field`, a field this decoder does not know (or no longer needs).
    /// - Throws: ``FirestoreError`` `.dataLoss` when the payload is truncated or its length runs past the end.
    /// - Complexity: O(1), or O(10) for a varint.
    package mutating func skip(_ field: ProtobufField) throws(FirestoreError) {
        switch field.wireType {
        case .varint: _ = try readVarint(nil)
        case .fixed64: _ = try take(8, nil)
        case .fixed32: _ = try take(4, nil)
        case .lengthDelimited: _ = try readLengthDelimited(nil)
        case .startGroup, .endGroup:
            // nextField() never returns these.
            throw failure(
                "wire type \(field.wireType.rawValue) (a proto2 group, unsupported) for field \(field.number)",
                at: field.offset)
        }
    }

    // MARK: - Nesting

    /// Reads the message payload of `field` with `body`, which sees a reader ending where the payload ends.
    ///
    /// - Parameters:
    ///   - field: a field whose wire type must be length-delimited.
    ///   - name: the field's proto name for error paths (`"document_change"`).
    ///   - body: reads the nested fields until ``nextField()`` returns `nil`; unread bytes are skipped.
    /// - Throws: ``FirestoreError`` `.dataLoss` for the wrong wire type, a length past the end, nesting
    ///   deeper than ``maximumDepth``, and whatever `body` throws.
    package mutating func readMessage<T>(
        _ field: ProtobufField, _ name: StaticString, _ body: (inout ProtobufReader) throws(FirestoreError) -> T
    ) throws(FirestoreError) -> T {
        try readMessage(field, element: .field(name), body)
    }

    /// ``readMessage(_:_:_:)`` with the path element given explicitly (a map key, a repeated index).
    package mutating func readMessage<T>(
        _ field: ProtobufField, element: PathElement, _ body: (inout ProtobufReader) throws(FirestoreError) -> T
    ) throws(FirestoreError) -> T {
        path.append(element)
        defer { path.removeLast() }
        try expect(field, .lengthDelimited)
        guard path.count <= Self.maximumDepth + 1 else {
            throw failure("messages nested deeper than \(Self.maximumDepth)", at: field.offset)
        }
        return try within(try readLengthDelimited(nil), body)
    }

    /// Runs `body` with the readable bytes narrowed to `range` (a payload this reader returned); afterwards
    /// reading continues after `range`, whatever `body` left unread.
    mutating func within<T>(_ range: Range<Int>, _ body: (inout ProtobufReader) throws(FirestoreError) -> T)
        throws(FirestoreError) -> T
    {
        let outerEnd = end
        position = range.lowerBound
        end = range.upperBound
        defer {
            position = range.upperBound
            end = outerEnd
        }
        return try body(&self)
    }

    // MARK: - Primitives

    /// Reads a varint of at most 10 bytes.
    /// - Parameter name: the field being read, for the error path (`nil`: the current message itself).
    mutating func readVarint(_ name: StaticString?) throws(FirestoreError) -> UInt64 {
        let start = position
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end else {
                throw failure("truncated varint", at: start, field: name)
            }
            let byte = buffer[position]
            position += 1
            // The tenth byte holds bit 63 only; protobuf parsers ignore its other bits, as here.
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            guard shift < 70 else {
                throw failure("varint longer than 10 bytes", at: start, field: name)
            }
        }
    }

    /// Takes the next `count` bytes of the current message.
    mutating func take(_ count: Int, _ name: StaticString?) throws(FirestoreError) -> Range<Int> {
        guard end - position >= count else {
            throw failure("\(count)-byte value past the end", at: position, field: name)
        }
        let range = position..<(position + count)
        position += count
        return range
    }

    /// Reads a length prefix and returns the range of the payload it announces.
    mutating func readLengthDelimited(_ name: StaticString?) throws(FirestoreError) -> Range<Int> {
        let start = position
        let length = try readVarint(name)
        guard length <= UInt64(end - position) else {
            throw failure("length \(length) past the end", at: start, field: name)
        }
        let range = position..<(position + Int(length))
        position = range.upperBound
        return range
    }

    /// The bytes at `range` (a range this reader returned, so inside the buffer).
    func bytes(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(rebasing: buffer[range])
    }

    /// Checks that `field` has the wire type its schema declares.
    package mutating func expect(_ field: ProtobufField, _ wireType: ProtobufWireType, _ name: StaticString? = nil)
        throws(FirestoreError)
    {
        guard field.wireType == wireType else {
            throw failure("expected wire type \(wireType), found \(field.wireType)", at: field.offset, field: name)
        }
    }

    // MARK: - Errors

    /// The current path with `field` appended, as error messages print it:
    /// `ListenResponse.document_change.document.fields["tags"].array_value.values[2]`.
    package func pathDescription(field: StaticString? = nil) -> String {
        var text = ""
        for element in path {
            switch element {
            case .field(let name):
                if !text.isEmpty { text += "." }
                text += name.description
            case .key(let key): text += "[" + String(reflecting: key) + "]"
            case .index(let index): text += "[\(index)]"
            }
        }
        if let field { text += "." + field.description }
        return text
    }

    /// A `.dataLoss` error: `<path>: <problem> at byte <offset>`.
    package func failure(_ problem: String, at offset: Int, field: StaticString? = nil) -> FirestoreError {
        FirestoreError(code: .dataLoss, message: "\(pathDescription(field: field)): \(problem) at byte \(offset)")
    }
}
