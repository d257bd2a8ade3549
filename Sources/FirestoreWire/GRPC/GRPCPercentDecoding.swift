/// Decodes the percent-encoding of `grpc-message` (gRPC's `PROTOCOL-HTTP2.md`: the message is UTF-8,
/// percent-encoded as `%XX` with upper- or lower-case hex digits).
package enum GRPCPercentDecoding {
    /// `text` with every `%XX` replaced by the byte it encodes, read as UTF-8 (invalid sequences become
    /// U+FFFD). A `%` not followed by two hex digits is kept as it is: the spec requires that a bad encoding
    /// never loses the message.
    ///
    /// - Complexity: O(n) in the length of `text` in UTF-8 bytes.
    package static func decode(_ text: String) -> String {
        let input = Array(text.utf8)
        guard input.contains(UInt8(ascii: "%")) else { return text }
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
                let high = hexValue(input[index + 1]), let low = hexValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(input[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
