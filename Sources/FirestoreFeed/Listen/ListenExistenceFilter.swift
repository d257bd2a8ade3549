import FirestoreWire

/// A `google.firestore.v1.ExistenceFilter` (`google/firestore/v1/write.proto`): how many documents match a
/// target now, and optionally a bloom filter of the names that did not change, so a client whose count
/// differs can find the removed documents.
///
/// Field numbers: `int32 target_id = 1`, `int32 count = 2`, `BloomFilter unchanged_names = 3`.
package struct ListenExistenceFilter: Sendable, Hashable {
    /// The target the filter applies to.
    package var targetID: Int32
    /// The number of documents that match the target.
    package var count: Int32
    /// The bloom filter of the unchanged names, or `nil` when the server sent none.
    package var unchangedNames: ListenBloomFilter?

    /// A filter from its parts.
    package init(targetID: Int32, count: Int32, unchangedNames: ListenBloomFilter? = nil) {
        self.targetID = targetID
        self.count = count
        self.unchangedNames = unchangedNames
    }

    /// Decodes the fields of the current message of `reader`; unknown fields are skipped.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        self.init(targetID: 0, count: 0)
        while let field = try reader.nextField() {
            switch field.number {
            case 1: targetID = try reader.readInt32(field, "target_id")
            case 2: count = try reader.readInt32(field, "count")
            case 3:
                unchangedNames = try reader.readMessage(field, "unchanged_names") { (nested) throws(FirestoreError) in
                    try ListenBloomFilter(reading: &nested)
                }
            default: try reader.skip(field)
            }
        }
    }
}
