internal import COpenSSL
import FirestoreWire

/// Membership tests on an existence filter's bloom filter (`google/firestore/v1/bloom_filter.proto`,
/// `BloomFilter`): whether a document's full resource name may be among the documents that match a target.
///
/// The rule (the proto's comments; the Firebase SDKs' `BloomFilter.mightContain`): the name's UTF-8 bytes are
/// hashed with MD5; the digest's two halves, read as little-endian unsigned 64-bit integers, are `h1` and `h2`;
/// for `i` in `0..<hash_count` the bit `(h1 + i * h2) mod bitCount` (64-bit wrapping arithmetic) must be set,
/// bit `n` being `bitmap[n / 8] & (1 << (n % 8))`. An empty filter or an empty name contains nothing.
package struct BloomFilterMembership: Sendable {
    private let bitmap: [UInt8]
    private let bitCount: UInt64
    private let hashCount: Int

    /// A filter ready for membership tests, or `nil` when `filter` is malformed (``ListenBloomFilter/bitCount``
    /// is `nil`): such a filter settles nothing.
    package init?(_ filter: ListenBloomFilter) {
        guard let bits = filter.bitCount else { return nil }
        bitmap = filter.bitmap
        bitCount = UInt64(bits)
        hashCount = Int(filter.hashCount)
    }

    /// Whether `name` may be in the set (false positives possible, false negatives not).
    /// - Complexity: O(name length + hash count).
    package func mightContain(_ name: String) -> Bool {
        guard bitCount > 0, !name.isEmpty, let digest = Self.md5(Array(name.utf8)) else { return false }
        let h1 = Self.littleEndianUInt64(digest, at: 0)
        let h2 = Self.littleEndianUInt64(digest, at: 8)
        for i in 0..<UInt64(hashCount) {
            let index = (h1 &+ i &* h2) % bitCount
            let byte = Int(index / 8)
            guard byte < bitmap.count, bitmap[byte] & (1 << (index % 8)) != 0 else { return false }
        }
        return true
    }

    private static func littleEndianUInt64(_ bytes: [UInt8], at offset: Int) -> UInt64 {
        var value: UInt64 = 0
        for position in (0..<8).reversed() { value = value << 8 | UInt64(bytes[offset + position]) }
        return value
    }

    /// The 16-byte MD5 digest of `bytes` (libcrypto's `EVP_Digest`), or `nil` if libcrypto fails.
    private static func md5(_ bytes: [UInt8]) -> [UInt8]? {
        var digest = [UInt8](repeating: 0, count: 16)
        var size: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            digest.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &size, EVP_md5(), nil)
            }
        }
        return ok == 1 && size == 16 ? digest : nil
    }
}
