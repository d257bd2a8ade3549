import FirestoreWire

/// A `google.firestore.v1.BloomFilter` (`google/firestore/v1/bloom_filter.proto`) as it arrives in
/// `ExistenceFilter.unchanged_names`: `BitSequence bits = 1` (`bytes bitmap = 1`, `int32 padding = 2`) and
/// `int32 hash_count = 2`. Bit `n` is `bitmap[n / 8] & (1 << (n % 8))`; entries are hashed with MD5 as
/// `bloom_filter.proto` describes (the watch layer's job, not the codec's).
///
/// The decoder keeps the fields as sent; ``bitCount`` says whether they describe a usable filter.
package struct ListenBloomFilter: Sendable, Hashable {
    /// The bits, 8 per byte, least significant bit first.
    package var bitmap: [UInt8]
    /// How many bits of the last byte to ignore, 0 ... 7 (0 when `bitmap` is empty).
    package var padding: Int32
    /// How many hash functions the filter uses.
    package var hashCount: Int32

    /// A filter from its parts.
    package init(bitmap: [UInt8], padding: Int32, hashCount: Int32) {
        self.bitmap = bitmap
        self.padding = padding
        self.hashCount = hashCount
    }

    /// The number of bits, `bitmap.count * 8 - padding`, or `nil` when `padding` is outside 0 ... 7, non-zero
    /// for an empty bitmap, or `hashCount` is negative (`bloom_filter.proto`'s constraints; the SDKs then
    /// ignore the filter).
    package var bitCount: Int? {
        guard (0...7).contains(padding), !(bitmap.isEmpty && padding != 0), hashCount >= 0 else { return nil }
        return bitmap.count * 8 - Int(padding)
    }

    /// Decodes the fields of the current message of `reader`; unknown fields are skipped.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        self.init(bitmap: [], padding: 0, hashCount: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1:
                try reader.readMessage(field, "bits") { (bits) throws(FirestoreError) in
                    while let member = try bits.nextField() {
                        switch member.number {
                        case 1: bitmap = try bits.readByteArray(member, "bitmap")
                        case 2: padding = try bits.readInt32(member, "padding")
                        default: try bits.skip(member)
                        }
                    }
                }
            case 2: hashCount = try reader.readInt32(field, "hash_count")
            default: try reader.skip(field)
            }
        }
    }
}
