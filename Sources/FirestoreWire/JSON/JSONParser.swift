#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A JSON syntax error with the byte offset where parsing stopped.
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong, e.g. `"expected ',' or '}'"`.
    public var reason: String
    /// Zero-based byte offset into the input.
    public var offset: Int

    public var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

extension JSONValue {
    /// Parses one JSON text (RFC 8259). White space may surround the value; anything else after it is an error.
    ///
    /// - Parameter data: UTF-8 bytes.
    /// - Throws: ``JSONParseError`` naming the byte offset of the fault. Nesting deeper than 512 levels is an
    ///   error, so hostile input cannot exhaust the stack.
    /// - Complexity: O(n) in the input size.
    public static func parse(_ data: Data) throws(JSONParseError) -> JSONValue {
        let result: Result<JSONValue, JSONParseError> = data.withUnsafeBytes { raw in
            var parser = JSONByteParser(bytes: raw.bindMemory(to: UInt8.self))
            do throws(JSONParseError) {
                return .success(try parser.parseDocument())
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Parses one JSON text given as a string.
    /// - Throws: ``JSONParseError``.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Data(text.utf8))
    }
}

struct JSONByteParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    var depth = 0
    static let maximumDepth = 512

    init(bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    mutating func parseDocument() throws(JSONParseError) -> JSONValue {
        skipWhitespace()
        let value = try parseValue()
        skipWhitespace()
        if index < bytes.count { throw fail("unexpected data after the JSON value") }
        return value
    }

    func fail(_ reason: String, at offset: Int? = nil) -> JSONParseError {
        JSONParseError(reason: reason, offset: offset ?? index)
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw fail("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw fail("unexpected character")
        }
    }

    mutating func expectLiteral(_ word: StaticString) throws(JSONParseError) {
        let start = index
        let length = word.utf8CodeUnitCount
        guard bytes.count - index >= length else { throw fail("invalid literal", at: start) }
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: length)
        for offset in 0..<length where bytes[index + offset] != expected[offset] {
            throw fail("invalid literal", at: start)
        }
        index += length
    }

    mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > Self.maximumDepth { throw fail("nesting deeper than \(Self.maximumDepth) levels") }
    }

    mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw fail("expected a string key") }
            let keyOffset = index
            let key = try parseString()
            if members[key] != nil {
                // Swift compares strings by canonical equivalence, so "é" and "e\u{301}" are one key: refuse
                // rather than silently drop one of the two values.
                throw fail(
                    "duplicate object key \(MessageQuote.quoted(key)) (or a canonically equivalent spelling)",
                    at: keyOffset)
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw fail("expected ':'") }
            index += 1
            skipWhitespace()
            members[key] = try parseValue()
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an object") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                depth -= 1
                return .object(members)
            }
            throw fail("expected ',' or '}'")
        }
    }

    mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw fail("unexpected end of input in an array") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            if bytes[index] == UInt8(ascii: "]") {
                index += 1
                depth -= 1
                return .array(elements)
            }
            throw fail("expected ',' or ']'")
        }
    }

    /// The string at `index` (``JSONScanner/string(in:at:)``).
    mutating func parseString() throws(JSONParseError) -> String {
        do {
            return try JSONScanner.string(in: bytes, at: &index)
        } catch {
            throw fail(error.reason, at: error.offset)
        }
    }

    /// The number at `index` (``JSONScanner/number(in:at:)``): an integer-shaped one that fits `Int64` as
    /// `.integer`, any other as a finite `.double`.
    mutating func parseNumber() throws(JSONParseError) -> JSONValue {
        let start = index
        let isInteger: Bool
        do {
            isInteger = try JSONScanner.number(in: bytes, at: &index).isInteger
        } catch {
            throw fail(error.reason, at: error.offset)
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .integer(value) }
        guard let value = Double(text) else { throw fail("invalid number", at: start) }
        // 1e400 would become infinity, which JSON cannot write back: refuse it rather than change it.
        guard value.isFinite else { throw fail("number out of the range of a double", at: start) }
        return .double(value)
    }
}

extension JSONValue {
    /// Parses a top-level JSON array one element at a time, calling `body` with each element and its index,
    /// so a large streamed response (runQuery, batchGet) never exists as one tree in memory.
    ///
    /// - Throws: ``JSONParseError`` with the byte offset when the text is not an array or is malformed
    ///   (elements before the fault have been passed to `body`); any error `body` throws, unchanged.
    /// - Complexity: O(n) in the input size; memory for one element at a time.
    public static func forEachElement(ofArray data: Data, _ body: (JSONValue, Int) throws -> Void) throws {
        try forEachElement(ofArray: data, fastPath: { _, _, _ in nil }, body)
    }

    /// ``forEachElement(ofArray:_:)`` with a fast path tried first on each element: `fastPath` gets the bytes,
    /// the offset where the element starts (after white space) and its index, and returns the offset just after
    /// the element when it took the element whole, or `nil` to leave it to this parser, which then parses the
    /// element from the same offset and calls `body` with it. A fast path must take only elements this parser
    /// accepts, and must change nothing when it returns `nil`: then the result and every error (with its byte
    /// offset) are this parser's.
    package static func forEachElement(
        ofArray data: Data, fastPath: (_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ position: Int) -> Int?,
        _ body: (JSONValue, Int) throws -> Void
    ) throws {
        try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) throws in
            var parser = JSONByteParser(bytes: raw.bindMemory(to: UInt8.self))
            parser.skipWhitespace()
            guard parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "[") else {
                throw parser.fail("expected an array")
            }
            parser.index += 1
            parser.skipWhitespace()
            var position = 0
            if parser.index < parser.bytes.count, parser.bytes[parser.index] == UInt8(ascii: "]") {
                parser.index += 1
            } else {
                while true {
                    parser.skipWhitespace()
                    if let end = fastPath(parser.bytes, parser.index, position), end > parser.index,
                        end <= parser.bytes.count
                    {
                        parser.index = end
                    } else {
                        let element = try parser.parseValue()
                        try body(element, position)
                    }
                    position += 1
                    parser.skipWhitespace()
                    guard parser.index < parser.bytes.count else {
                        throw parser.fail("unexpected end of input in an array")
                    }
                    if parser.bytes[parser.index] == UInt8(ascii: ",") {
                        parser.index += 1
                        continue
                    }
                    if parser.bytes[parser.index] == UInt8(ascii: "]") {
                        parser.index += 1
                        break
                    }
                    throw parser.fail("expected ',' or ']'")
                }
            }
            parser.skipWhitespace()
            if parser.index < parser.bytes.count { throw parser.fail("unexpected data after the JSON value") }
        }
    }
}
