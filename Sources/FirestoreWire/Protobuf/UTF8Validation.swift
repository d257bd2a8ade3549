/// The offset of the first byte of the first ill-formed UTF-8 sequence in `bytes`, or `nil` when all of
/// `bytes` is well-formed UTF-8 (Unicode 15, §3.9 table 3-7 "Well-Formed UTF-8 Byte Sequences": no overlong
/// forms, no surrogates U+D800 ... U+DFFF, nothing above U+10FFFF, no truncated sequence).
///
/// ``ProtobufReader/readString(_:_:)`` checks a string with it before decoding it; it follows the same table as
/// `String(validating:as:)`.
/// - Complexity: O(n).
func firstInvalidUTF8Offset(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var index = 0
    let count = bytes.count
    while index < count {
        let lead = bytes[index]
        if lead < 0x80 {
            index += 1
            continue
        }
        let continuationCount: Int
        var secondRange: ClosedRange<UInt8> = 0x80...0xBF
        switch lead {
        case 0xC2...0xDF: continuationCount = 1
        case 0xE0:
            continuationCount = 2
            secondRange = 0xA0...0xBF
        case 0xED:
            continuationCount = 2
            secondRange = 0x80...0x9F
        case 0xE1...0xEC, 0xEE...0xEF: continuationCount = 2
        case 0xF0:
            continuationCount = 3
            secondRange = 0x90...0xBF
        case 0xF1...0xF3: continuationCount = 3
        case 0xF4:
            continuationCount = 3
            secondRange = 0x80...0x8F
        default: return index
        }
        guard count - index > continuationCount, secondRange.contains(bytes[index + 1]) else { return index }
        var next = index + 2
        while next <= index + continuationCount {
            guard (0x80...0xBF).contains(bytes[next]) else { return index }
            next += 1
        }
        index = next
    }
    return nil
}
