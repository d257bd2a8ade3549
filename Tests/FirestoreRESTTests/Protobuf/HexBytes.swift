// Written-out protobuf bytes for the GRPC tests: `hex("0a 03 61 62 63")`. Spaces and newlines are ignored.

/// The bytes of a hex literal written in a test; a malformed literal is a test bug and records an issue.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.unicodeScalars.filter { !$0.properties.isWhitespace })
    var bytes: [UInt8] = []
    var index = 0
    while index + 1 < digits.count {
        guard let byte = UInt8(String(digits[index]) + String(digits[index + 1]), radix: 16) else {
            preconditionFailure("bad hex literal in a test: \(text)")
        }
        bytes.append(byte)
        index += 2
    }
    precondition(index == digits.count, "odd hex literal in a test: \(text)")
    return bytes
}

/// `count` copies of `byte`, for long payloads in written-out messages.
func repeated(_ byte: UInt8, _ count: Int) -> [UInt8] {
    [UInt8](repeating: byte, count: count)
}
