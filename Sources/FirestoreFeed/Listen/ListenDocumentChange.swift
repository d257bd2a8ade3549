import FirestoreWire

/// A `google.firestore.v1.DocumentChange` (`google/firestore/v1/write.proto`), the Listen stream's wire
/// message (not the feed's `DocumentChange` with its indexes): a document's new state and the targets
/// it now matches or no longer matches.
///
/// Field numbers: `Document document = 1`, `repeated int32 target_ids = 5`,
/// `repeated int32 removed_target_ids = 6`.
package struct ListenDocumentChange: Sendable, Hashable {
    /// The document's new state.
    package var document: Document
    /// The targets the document matches.
    package var targetIDs: [Int32]
    /// The targets the document no longer matches.
    package var removedTargetIDs: [Int32]

    /// A change from its parts.
    package init(document: Document, targetIDs: [Int32] = [], removedTargetIDs: [Int32] = []) {
        self.document = document
        self.targetIDs = targetIDs
        self.removedTargetIDs = removedTargetIDs
    }

    /// Decodes the fields of the current message of `reader`; unknown fields are skipped.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data, a malformed document, or no document.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        let start = reader.position
        var document: Document?
        var targetIDs: [Int32] = []
        var removedTargetIDs: [Int32] = []
        while let field = try reader.nextField() {
            switch field.number {
            case 1:
                document = try reader.readMessage(field, "document") { (nested) throws(FirestoreError) in
                    try Document(reading: &nested)
                }
            case 5: try reader.readInt32s(field, "target_ids", into: &targetIDs)
            case 6: try reader.readInt32s(field, "removed_target_ids", into: &removedTargetIDs)
            default: try reader.skip(field)
            }
        }
        guard let document else { throw reader.failure("DocumentChange without a document", at: start) }
        self.init(document: document, targetIDs: targetIDs, removedTargetIDs: removedTargetIDs)
    }
}
