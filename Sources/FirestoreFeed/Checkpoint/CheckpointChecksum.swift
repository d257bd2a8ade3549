/// The checksum each checkpoint row carries over its own content (FNV-1a, 64 bits): a row whose bytes changed on
/// disk without SQLite noticing (a flipped bit inside a value) is refused rather than misread. A corruption check,
/// not a security measure. O(n) in the bytes.
enum CheckpointChecksum {
    static func fnv1a64(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return hash
    }

    /// The checksum of `fields` joined with a separator no UTF-8 text contains (0xFF), as a signed 64-bit column
    /// value; `nil` fields are written as 0xFE.
    static func row(_ fields: [[UInt8]?]) -> Int64 {
        var bytes: [UInt8] = []
        for field in fields {
            if let field { bytes += field } else { bytes.append(0xfe) }
            bytes.append(0xff)
        }
        return Int64(bitPattern: fnv1a64(bytes))
    }
}
