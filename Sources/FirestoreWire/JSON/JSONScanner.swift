/// The lexical grammar of a JSON string and a JSON number (RFC 8259, sections 6 and 7), scanned from bytes: the one
/// scanner behind `JSONValue.parse` (`JSONByteParser`, which throws a ``JSONParseError`` where it fails) and behind
/// the REST decoders that read values straight from a body's bytes (FirestoreREST's `RESTByteReader`, which gives up
/// and leaves the bytes to the parser there). Both therefore accept and decode exactly the same strings and numbers.
package enum JSONScanner {
    /// Where and why the bytes are not a string or a number: what the parser reports.
    package struct Failure: Error, Sendable, Equatable {
        /// What is wrong, e.g. `unpaired UTF-16 surrogate`.
        package let reason: String
        /// The byte offset the parser names.
        package let offset: Int
    }

    /// The string whose opening quote is at `index` (the caller checked it), with its escapes decoded, surrogate
    /// pairs joined and its UTF-8 validated; `index` ends just after the closing quote.
    /// - Throws: ``Failure`` where the bytes are no JSON string (`index` is then where the scan stopped).
    /// - Complexity: O(n) in the string's bytes; no copy for a string without escapes.
    package static func string(in bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) throws(Failure) -> String {
        let start = index
        index += 1
        let contentStart = index
        var isASCII = true
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let slice = UnsafeBufferPointer(rebasing: bytes[contentStart..<index])
                index += 1
                // ASCII needs no validation, and `String(decoding:)` is the fast, specialised path.
                if isASCII { return String(decoding: slice, as: UTF8.self) }
                guard let text = String(validating: slice, as: UTF8.self) else {
                    throw Failure(reason: "invalid UTF-8 in a string", offset: start)
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw Failure(reason: "control character in a string", offset: index) }
            if byte >= 0x80 { isASCII = false }
            index += 1
        }
        var buffer = [UInt8](UnsafeBufferPointer(rebasing: bytes[contentStart..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw Failure(reason: "invalid UTF-8 in a string", offset: start)
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard index < bytes.count else { break }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""): buffer.append(0x22)
                case UInt8(ascii: "\\"): buffer.append(0x5C)
                case UInt8(ascii: "/"): buffer.append(0x2F)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4(bytes, &index)
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw Failure(reason: "unpaired UTF-16 surrogate", offset: index) }
                        index += 2
                        let low = try hex4(bytes, &index)
                        guard (0xDC00...0xDFFF).contains(low) else {
                            throw Failure(reason: "unpaired UTF-16 surrogate", offset: index)
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw Failure(reason: "unpaired UTF-16 surrogate", offset: index)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else {
                        throw Failure(reason: "invalid \\u escape", offset: index)
                    }
                    buffer.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw Failure(reason: "invalid escape", offset: index - 2)
                }
            default:
                if byte < 0x20 { throw Failure(reason: "control character in a string", offset: index) }
                buffer.append(byte)
                index += 1
            }
        }
        throw Failure(reason: "unterminated string", offset: start)
    }

    /// Four hex digits of a `\u` escape at `index`; `index` ends after them, or at the first bad digit (nothing is
    /// read when fewer than four bytes are left).
    private static func hex4(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) throws(Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw Failure(reason: "truncated \\u escape", offset: index) }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw Failure(reason: "invalid hex digit in \\u escape", offset: index)
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    /// The number at `index` in JSON's grammar (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`), as the range of its
    /// bytes, and whether it is integer-shaped (no fraction, no exponent); `index` ends just after it. Converting
    /// the text is the caller's.
    /// - Throws: ``Failure`` `invalid number` at the number's start where the bytes are no JSON number.
    /// - Complexity: O(n) in the number's bytes.
    package static func number(in bytes: UnsafeBufferPointer<UInt8>, at index: inout Int) throws(Failure) -> (
        range: Range<Int>, isInteger: Bool
    ) {
        let start = index
        var isInteger = true
        func isDigit(_ offset: Int) -> Bool {
            offset >= 0 && offset < bytes.count && (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset])
        }
        func isByte(_ offset: Int, _ byte: UInt8) -> Bool {
            offset >= 0 && offset < bytes.count && bytes[offset] == byte
        }
        let invalid = Failure(reason: "invalid number", offset: start)
        if isByte(index, UInt8(ascii: "-")) { index += 1 }
        guard isDigit(index) else { throw invalid }
        if isByte(index, UInt8(ascii: "0")) {
            index += 1
        } else {
            while isDigit(index) { index += 1 }
        }
        if isByte(index, UInt8(ascii: ".")) {
            isInteger = false
            index += 1
            guard isDigit(index) else { throw invalid }
            while isDigit(index) { index += 1 }
        }
        if isByte(index, UInt8(ascii: "e")) || isByte(index, UInt8(ascii: "E")) {
            isInteger = false
            index += 1
            if isByte(index, UInt8(ascii: "+")) || isByte(index, UInt8(ascii: "-")) { index += 1 }
            guard isDigit(index) else { throw invalid }
            while isDigit(index) { index += 1 }
        }
        return (start..<index, isInteger)
    }
}
