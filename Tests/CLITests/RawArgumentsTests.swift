import FirestoreFeedCLI
import Testing

/// Decoding the raw command line (`RawArguments`): no process, no network.
@Suite(.timeLimit(.minutes(2))) struct RawArgumentsTests {
    @Test func validArgumentsDecodeAsGiven() throws {
        let arguments: [[UInt8]] = [Array("get".utf8), Array("fruits/pomme-de-terre-é😀".utf8), []]
        #expect(try RawArguments.decode(arguments) == ["get", "fruits/pomme-de-terre-é😀", ""])
    }

    @Test func theFirstInvalidArgumentIsNamedWithItsPosition() {
        #expect(throws: RawArguments.InvalidArgument(position: 2, bytes: [0x63, 0x2F, 0xC3])) {
            try RawArguments.decode([Array("get".utf8), [0x63, 0x2F, 0xC3], [0xFF]])
        }
        #expect(
            RawArguments.InvalidArgument(position: 2, bytes: [0x63, 0x2F, 0xC3]).message
                == #"argument 2 is not valid UTF-8: "c/\xC3""#)
    }

    @Test(arguments: [
        ([0x63, 0x2F, 0xC3], #"c/\xC3"#),  // a truncated 2-byte sequence
        ([0xF0, 0x9F, 0x98, 0x61], #"\xF0\x9F\x98a"#),  // a truncated 4-byte sequence, then "a"
        ([0xC0, 0x80], #"\xC0\x80"#),  // an overlong NUL
        ([0xED, 0xA0, 0x80], #"\xED\xA0\x80"#),  // a UTF-16 surrogate
        ([0xF4, 0x90, 0x80, 0x80], #"\xF4\x90\x80\x80"#),  // above U+10FFFF
        ([0x22, 0x5C, 0x0A, 0x7F], #"\"\\\x0A\x7F"#),  // quote, backslash, newline, DEL
        (Array("é😀".utf8) + [0xFF], #"é😀\xFF"#),
    ])
    func messagesShowInvalidBytesAsHex(bytes: [UInt8], escaped: String) {
        #expect(RawArguments.escaped(bytes) == escaped)
    }
}
