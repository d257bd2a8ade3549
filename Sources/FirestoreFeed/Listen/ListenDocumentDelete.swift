import FirestoreWire

/// A `google.firestore.v1.DocumentDelete` (`google/firestore/v1/write.proto`): a document was deleted.
///
/// Field numbers: `string document = 1`, `repeated int32 removed_target_ids = 6`,
/// `google.protobuf.Timestamp read_time = 4`.
package struct ListenDocumentDelete: Sendable, Hashable {
    /// The deleted document's full resource name.
    package var documentName: String
    /// The targets that matched the document before.
    package var removedTargetIDs: [Int32]
    /// When the delete was observed (at or after its commit time), or `nil`.
    package var readTime: Timestamp?

    /// A delete from its parts.
    package init(documentName: String, removedTargetIDs: [Int32] = [], readTime: Timestamp? = nil) {
        self.documentName = documentName
        self.removedTargetIDs = removedTargetIDs
        self.readTime = readTime
    }

    /// Decodes the fields of the current message of `reader`; unknown fields are skipped.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        self.init(documentName: "")
        while let field = try reader.nextField() {
            switch field.number {
            case 1: documentName = try reader.readString(field, "document")
            case 6: try reader.readInt32s(field, "removed_target_ids", into: &removedTargetIDs)
            case 4:
                readTime = try reader.readMessage(field, "read_time") { (nested) throws(FirestoreError) in
                    try Timestamp(reading: &nested)
                }
            default: try reader.skip(field)
            }
        }
    }
}
