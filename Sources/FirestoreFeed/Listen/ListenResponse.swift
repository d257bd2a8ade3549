import FirestoreWire

/// A `google.firestore.v1.ListenResponse` (`google/firestore/v1/firestore.proto`), one message the server
/// sends on the Listen stream: oneof `response_type` { `TargetChange target_change = 2`,
/// `DocumentChange document_change = 3`, `DocumentDelete document_delete = 4`,
/// `DocumentRemove document_remove = 6`, `ExistenceFilter filter = 5` }.
///
/// ```swift
/// switch try ListenResponse(protobuf: messageBody) {   // one gRPC message body, frame header removed
/// case .targetChange(let change): ...
/// case .documentChange(let change): ...   // change.document is a Document
/// ...
/// }
/// ```
package enum ListenResponse: Sendable, Hashable {
    /// Targets changed (added, removed, current, reset, or a new resume token).
    case targetChange(ListenTargetChange)
    /// A document changed.
    case documentChange(ListenDocumentChange)
    /// A document was deleted.
    case documentDelete(ListenDocumentDelete)
    /// A document went out of view of some targets.
    case documentRemove(ListenDocumentRemove)
    /// The count (and optionally a bloom filter) of the documents matching a target.
    case filter(ListenExistenceFilter)
    /// A message with no member this decoder knows: empty, or a response type added to `firestore.proto`
    /// after this decoder was written. Readers ignore it.
    case unrecognized

    /// Decodes one serialized `ListenResponse` message. When the oneof appears more than once the last member
    /// wins (protobuf's rule); unknown fields are skipped at every level.
    ///
    /// - Parameter bytes: one gRPC message body (after the 5-byte frame header, which is not this type's
    ///   concern).
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the field path and the byte offset for a truncated or
    ///   overlong varint, a length past the end, a wrong wire type for a known field, a group wire type,
    ///   ill-formed UTF-8, an out-of-range timestamp, an unknown `TargetChangeType`, a document without a name
    ///   or a value with no known member: e.g.
    ///   `ListenResponse.document_change.document.fields: length 900 past the end at byte 37`.
    /// - Complexity: O(n) in `bytes.count`.
    package init(protobuf bytes: [UInt8]) throws(FirestoreError) {
        self = try ProtobufReader.read(bytes, message: "ListenResponse") { (reader) throws(FirestoreError) in
            var response = ListenResponse.unrecognized
            while let field = try reader.nextField() {
                switch field.number {
                case 2:
                    response = .targetChange(
                        try reader.readMessage(field, "target_change") { (nested) throws(FirestoreError) in
                            try ListenTargetChange(reading: &nested)
                        })
                case 3:
                    response = .documentChange(
                        try reader.readMessage(field, "document_change") { (nested) throws(FirestoreError) in
                            try ListenDocumentChange(reading: &nested)
                        })
                case 4:
                    response = .documentDelete(
                        try reader.readMessage(field, "document_delete") { (nested) throws(FirestoreError) in
                            try ListenDocumentDelete(reading: &nested)
                        })
                case 6:
                    response = .documentRemove(
                        try reader.readMessage(field, "document_remove") { (nested) throws(FirestoreError) in
                            try ListenDocumentRemove(reading: &nested)
                        })
                case 5:
                    response = .filter(
                        try reader.readMessage(field, "filter") { (nested) throws(FirestoreError) in
                            try ListenExistenceFilter(reading: &nested)
                        })
                default:
                    try reader.skip(field)
                }
            }
            return response
        }
    }
}
