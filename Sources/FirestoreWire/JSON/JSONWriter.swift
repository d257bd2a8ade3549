#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension JSONValue {
    /// Serialises this value as JSON text with object keys in sorted (code point) order, so that the same
    /// value always gives the same bytes.
    ///
    /// - Parameter pretty: two-space indentation and one member per line when `true`; compact otherwise.
    /// - Returns: UTF-8 bytes. A non-finite ``double(_:)`` has no JSON form and is written as `null`; the
    ///   Firestore value mapping never produces one (it writes `"NaN"`, `"Infinity"`, `"-Infinity"`).
    /// - Complexity: O(n log k) for n values and objects of at most k members.
    public func serialized(pretty: Bool = false) -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output, pretty: pretty, indent: 0)
        return Data(output)
    }

    /// The pretty form of this value as it appears `indent` levels deep in an enclosing pretty document (nested
    /// lines indented by `indent` + 1 levels of two spaces; the first line not indented), so that a writer can
    /// place it into a larger document byte for byte as ``serialized(pretty:)`` of the whole would.
    package func serialized(prettyAtIndent indent: Int) -> Data {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output, pretty: true, indent: indent)
        return Data(output)
    }

    /// ``serialized(pretty:)`` as a `String`.
    public func serializedString(pretty: Bool = false) -> String {
        String(decoding: serialized(pretty: pretty), as: UTF8.self)
    }

    func write(to output: inout [UInt8], pretty: Bool, indent: Int) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer(let number): output.append(contentsOf: String(number).utf8)
        case .double(let number):
            guard number.isFinite else {
                output.append(contentsOf: "null".utf8)
                return
            }
            output.append(contentsOf: Self.formatDouble(number).utf8)
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let elements):
            if elements.isEmpty {
                output.append(contentsOf: "[]".utf8)
                return
            }
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { Self.newline(&output, indent + 1) }
                element.write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent) }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            if members.isEmpty {
                output.append(contentsOf: "{}".utf8)
                return
            }
            output.append(UInt8(ascii: "{"))
            for (position, key) in members.keys.sorted().enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                if pretty { Self.newline(&output, indent + 1) }
                Self.writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                if pretty { output.append(UInt8(ascii: " ")) }
                members[key, default: .null].write(to: &output, pretty: pretty, indent: indent + 1)
            }
            if pretty { Self.newline(&output, indent) }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Shortest text that reads back as the same `Double`; whole numbers keep a `.0` (`7190000.0`), and
    /// exponents use JSON's form (`1e+308`).
    package static func formatDouble(_ number: Double) -> String {
        let text = number.description
        if text.contains("e") || text.contains(".") { return text }
        return text + ".0"
    }

    static func newline(_ output: inout [UInt8], _ indent: Int) {
        output.append(0x0A)
        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: indent * 2))
    }

    /// Appends `text` as a JSON string: quoted, with `"`, `\\` and the control characters escaped (`\\n`, `\\u0001`), every
    /// other byte as it is.
    package static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { bytes in
            // Runs of bytes that need no escape go in whole.
            var start = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == 0x22 || byte == 0x5C else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
                escape(byte, to: &output)
                start = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends the escape of `byte`, a quote, a backslash or a control character.
    private static func escape(_ byte: UInt8, to output: inout [UInt8]) {
        switch byte {
        case 0x22: output.append(contentsOf: [0x5C, 0x22])
        case 0x5C: output.append(contentsOf: [0x5C, 0x5C])
        case 0x0A: output.append(contentsOf: [0x5C, UInt8(ascii: "n")])
        case 0x0D: output.append(contentsOf: [0x5C, UInt8(ascii: "r")])
        case 0x09: output.append(contentsOf: [0x5C, UInt8(ascii: "t")])
        case 0x08: output.append(contentsOf: [0x5C, UInt8(ascii: "b")])
        case 0x0C: output.append(contentsOf: [0x5C, UInt8(ascii: "f")])
        default:
            let hex = Array("0123456789abcdef".utf8)
            output.append(contentsOf: [
                0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)],
            ])
        }
    }
}
