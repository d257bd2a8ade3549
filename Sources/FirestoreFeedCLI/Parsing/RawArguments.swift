#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The command line as the process received it, byte for byte, and its decoding as UTF-8.
///
/// `CommandLine.arguments` has already replaced every invalid UTF-8 sequence with U+FFFD, so
/// `get $'c/\xc3'` would request `c/%EF%BF%BD`, a document nobody named. The tool reads the raw `argv`
/// instead and refuses an argument that is not valid UTF-8 (exit 2), naming it and its position.
package enum RawArguments {
    /// An argument that is not valid UTF-8.
    package struct InvalidArgument: Error, Equatable, Sendable {
        /// Its position on the command line: 1 is the first argument after the tool's name.
        package let position: Int
        /// Its bytes as given.
        package let bytes: [UInt8]

        package init(position: Int, bytes: [UInt8]) {
            self.position = position
            self.bytes = bytes
        }

        /// `argument 2 is not valid UTF-8: "c/\xC3"`: the valid parts as they are, each byte of an invalid
        /// sequence as `\xHH`.
        package var message: String {
            "argument \(position) is not valid UTF-8: \"\(RawArguments.escaped(bytes))\""
        }
    }

    /// The process's arguments after the tool's name, as bytes (`CommandLine.unsafeArgv`).
    package static func process() -> [[UInt8]] {
        let argv = CommandLine.unsafeArgv
        var arguments: [[UInt8]] = []
        for index in 1..<max(1, Int(CommandLine.argc)) {
            guard let pointer = argv[index] else { break }
            let length = strlen(pointer)
            arguments.append(
                pointer.withMemoryRebound(to: UInt8.self, capacity: length) {
                    Array(UnsafeBufferPointer(start: $0, count: length))
                })
        }
        return arguments
    }

    /// Decodes every argument as UTF-8.
    /// - Throws: ``InvalidArgument`` for the first argument that is not valid UTF-8 (position 1-based).
    /// - Complexity: O(n) in the total length of the arguments.
    package static func decode(_ arguments: [[UInt8]]) throws(InvalidArgument) -> [String] {
        var decoded: [String] = []
        decoded.reserveCapacity(arguments.count)
        for (index, bytes) in arguments.enumerated() {
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw InvalidArgument(position: index + 1, bytes: bytes)
            }
            decoded.append(text)
        }
        return decoded
    }

    /// `bytes` for a message: valid UTF-8 as it is (a backslash or a double quote escaped with a backslash),
    /// every byte of an invalid sequence and every control character as `\xHH`.
    /// - Complexity: O(n) in the number of bytes.
    package static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        var offset = 0
        while offset < bytes.count {
            let length = sequenceLength(bytes, from: offset)
            let sequence = bytes[offset..<offset + abs(length)]
            offset += abs(length)
            guard length > 0, let scalar = String(validating: sequence, as: UTF8.self)?.unicodeScalars.first else {
                for byte in sequence { text += "\\x" + hex(byte) }
                continue
            }
            switch scalar {
            case "\\", "\"": text += "\\" + String(Character(scalar))
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: text += "\\x" + hex(UInt8(scalar.value))
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// The length of the UTF-8 sequence at `start` (at least 1 byte): positive for a valid one, negative for a
    /// maximal invalid subpart (Unicode's "U+FFFD substitution of maximal subparts", as Swift's decoder reports).
    private static func sequenceLength(_ bytes: [UInt8], from start: Int) -> Int {
        let lead = bytes[start]
        let (count, lowest, highest): (Int, UInt8, UInt8)
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: (count, lowest, highest) = (2, 0x80, 0xBF)
        case 0xE0: (count, lowest, highest) = (3, 0xA0, 0xBF)
        case 0xE1...0xEC, 0xEE...0xEF: (count, lowest, highest) = (3, 0x80, 0xBF)
        case 0xED: (count, lowest, highest) = (3, 0x80, 0x9F)
        case 0xF0: (count, lowest, highest) = (4, 0x90, 0xBF)
        case 0xF1...0xF3: (count, lowest, highest) = (4, 0x80, 0xBF)
        case 0xF4: (count, lowest, highest) = (4, 0x80, 0x8F)
        default: return -1
        }
        var length = 1
        while length < count, start + length < bytes.count {
            let range = length == 1 ? lowest...highest : 0x80...0xBF
            guard range.contains(bytes[start + length]) else { break }
            length += 1
        }
        return length == count ? length : -length
    }

    private static func hex(_ byte: UInt8) -> String {
        (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true)
    }
}
