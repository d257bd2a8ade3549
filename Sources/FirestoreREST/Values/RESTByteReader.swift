import FirestoreWire

/// A cursor over a REST body's bytes for the decoders that build values straight from JSON bytes
/// (``RunQueryElementDecoder``): the scanning steps of `JSONValue.parse` (FirestoreWire's `JSONByteParser`), each
/// returning `nil` (or `false`) where that parser would throw and also where this reader does not go (deep
/// nesting, and whatever a caller does not know), so that a caller gives up and leaves the bytes to the parser,
/// which then produces its own result or its own error. It accepts nothing the parser rejects: the same white
/// space, and strings and numbers read by the parser's own scanner (FirestoreWire's ``JSONScanner``: escapes,
/// surrogate pairs, UTF-8 validation, number grammar).
///
/// Every read is bounds-checked: `index` may point anywhere, and a read past the end is `nil`.
package struct RESTByteReader {
    package let bytes: UnsafeBufferPointer<UInt8>
    package var index: Int
    var depth = 0
    /// Deeper objects and arrays are left to the parser (whose own limit is 512): Firestore nests maps at most
    /// 20 deep, and each level here is a few stack frames.
    static let maximumDepth = 64

    package init(bytes: UnsafeBufferPointer<UInt8>, index: Int) {
        self.bytes = bytes
        self.index = index
    }

    /// The byte at `index`, or `nil` at or past the end.
    func peek() -> UInt8? {
        index >= 0 && index < bytes.count ? bytes[index] : nil
    }

    mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    /// Consumes `literal` (`true`, `false`, `null`) when the bytes at `index` spell it.
    mutating func consume(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard index >= 0, bytes.count - index >= length else { return false }
        let expected = UnsafeBufferPointer(start: literal.utf8Start, count: length)
        for offset in 0..<length where bytes[index + offset] != expected[offset] { return false }
        index += length
        return true
    }

    // MARK: Objects and arrays, as the parser walks them

    /// Consumes `open` (`{` or `[`) and the white space after it, one level deeper; `false` when the byte is
    /// not `open` or the nesting is too deep.
    private mutating func enter(_ open: UInt8) -> Bool {
        guard peek() == open, depth < Self.maximumDepth else { return false }
        depth += 1
        index += 1
        skipWhitespace()
        return true
    }

    /// Starts an object: `true` when it has a first member (read it with ``memberName()``), `false` when it is
    /// `{}` (consumed), `nil` when the bytes are not an object this reader goes into.
    mutating func beginObject() -> Bool? {
        guard enter(UInt8(ascii: "{")) else { return nil }
        if peek() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return false
        }
        return true
    }

    /// After a member's value: `true` when another member follows (the comma consumed), `false` at the object's
    /// end (consumed), `nil` for anything else.
    mutating func nextMember() -> Bool? {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            index += 1
            return true
        case UInt8(ascii: "}"):
            index += 1
            depth -= 1
            return false
        default: return nil
        }
    }

    /// Starts an array: `true` when it has a first element (at `index`), `false` for `[]` (consumed), `nil` when
    /// the bytes are not an array this reader goes into.
    mutating func beginArray() -> Bool? {
        guard enter(UInt8(ascii: "[")) else { return nil }
        if peek() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return false
        }
        return true
    }

    /// After an element: `true` when another follows (the comma and white space consumed), `false` at the
    /// array's end (consumed), `nil` for anything else.
    mutating func nextElement() -> Bool? {
        skipWhitespace()
        switch peek() {
        case UInt8(ascii: ","):
            index += 1
            skipWhitespace()
            return true
        case UInt8(ascii: "]"):
            index += 1
            depth -= 1
            return false
        default: return nil
        }
    }

    /// A member name given without escapes, as the offsets of its bytes, with the `:` and the white space
    /// around it consumed, so `index` is at the value; `nil` for an escaped name (the caller does not know it as
    /// bytes, so it gives up) or malformed bytes.
    mutating func memberName() -> Range<Int>? {
        skipWhitespace()
        guard let name = rawString() else { return nil }
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else { return nil }
        index += 1
        skipWhitespace()
        return name
    }

    /// Whether the bytes at `range` are `name`'s.
    func matches(_ range: Range<Int>, _ name: StaticString) -> Bool {
        let length = name.utf8CodeUnitCount
        guard range.count == length, range.lowerBound >= 0, range.upperBound <= bytes.count else { return false }
        let expected = UnsafeBufferPointer(start: name.utf8Start, count: length)
        for offset in 0..<length where bytes[range.lowerBound + offset] != expected[offset] { return false }
        return true
    }

    // MARK: Strings

    /// A string without escapes or control characters, as the offsets of its content, the quotes consumed;
    /// `nil` when the bytes are not such a string (its UTF-8 is not checked: callers compare it with ASCII or
    /// parse it as ASCII).
    mutating func rawString() -> Range<Int>? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                index = end + 1
                return start..<end
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            end += 1
        }
        return nil
    }

    /// A JSON string, decoded as the parser decodes it (the same scanner: ``JSONScanner/string(in:at:)``); `nil`
    /// where the parser would throw (`index` then stays).
    mutating func string() -> String? {
        guard peek() == UInt8(ascii: "\"") else { return nil }
        var end = index
        guard let text = try? JSONScanner.string(in: bytes, at: &end) else { return nil }
        index = end
        return text
    }

    // MARK: Numbers

    /// A JSON number in the parser's grammar (the same scanner: ``JSONScanner/number(in:at:)``), as offsets, and
    /// whether it is integer-shaped (no fraction, no exponent); `nil` when the bytes are not one (`index` then stays).
    mutating func number() -> (range: Range<Int>, isInteger: Bool)? {
        var end = index
        guard let number = try? JSONScanner.number(in: bytes, at: &end) else { return nil }
        index = end
        return number
    }

    /// The integer that `-?[0-9]+` at `range` spells, as `Int64(_:)` reads that text, or `nil` for other bytes
    /// or a value outside `Int64`.
    func integer(_ range: Range<Int>) -> Int64? {
        guard range.lowerBound >= 0, range.upperBound <= bytes.count else { return nil }
        var offset = range.lowerBound
        let negative = offset < range.upperBound && bytes[offset] == UInt8(ascii: "-")
        if negative { offset += 1 }
        guard offset < range.upperBound else { return nil }
        var value: Int64 = 0
        while offset < range.upperBound {
            let byte = bytes[offset]
            guard byte >= 0x30, byte <= 0x39 else { return nil }
            // Negative values accumulate below zero, so Int64.min is reachable.
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let digit = Int64(byte - 0x30)
            let (next, overflowAgain) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow, !overflowAgain else { return nil }
            value = next
            offset += 1
        }
        return value
    }

    /// A JSON number as the parser reads it and as a REST `doubleValue` takes it: an integer that fits
    /// `Int64` converted, any other number parsed as a double, which must be finite; `nil` for other bytes.
    mutating func double() -> Double? {
        guard let parsed = number() else { return nil }
        let (range, isInteger) = (parsed.range, parsed.isInteger)
        if isInteger, let value = integer(range) { return Double(value) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return nil }
        return value
    }
}
