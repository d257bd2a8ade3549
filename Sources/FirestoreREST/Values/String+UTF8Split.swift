import FirestoreWire

extension String {
    /// Splits at every `separator` byte, keeping empty parts. Works on UTF-8 bytes, not `Character`s: a `/`
    /// followed by a combining mark is one `Character` but still a separator in a Firestore path.
    func splitUTF8(_ separator: Unicode.Scalar) -> [String] {
        utf8.split(separator: UInt8(ascii: separator), omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether the text holds the byte `scalar` (an ASCII scalar), whatever follows it.
    func containsUTF8(_ scalar: Unicode.Scalar) -> Bool {
        utf8.contains(UInt8(ascii: scalar))
    }

    /// The part after the last `separator` byte (the whole text when there is none).
    func lastUTF8Component(_ separator: Unicode.Scalar) -> String {
        guard let index = utf8.lastIndex(of: UInt8(ascii: separator)) else { return self }
        return String(decoding: utf8[utf8.index(after: index)...], as: UTF8.self)
    }
}
