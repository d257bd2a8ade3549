import FirestoreWire

/// A `google.firestore.v1.TargetChange` (`google/firestore/v1/firestore.proto`): targets were added,
/// removed, became current or were reset, or only a new resume token arrived.
///
/// Field numbers: `TargetChangeType target_change_type = 1`, `repeated int32 target_ids = 2`,
/// `google.rpc.Status cause = 3`, `bytes resume_token = 4`, `google.protobuf.Timestamp read_time = 6`.
package struct ListenTargetChange: Sendable, Hashable {
    /// `TargetChangeType`.
    package enum Kind: Int32, Sendable, Hashable {
        /// `NO_CHANGE` (0): only an updated resume token (and, with empty target IDs and a read time, a
        /// consistent snapshot of the whole stream).
        case noChange = 0
        /// `ADD` (1).
        case add = 1
        /// `REMOVE` (2), with a ``ListenTargetChange/cause`` when the server refused the target.
        case remove = 2
        /// `CURRENT` (3): the targets reflect every change committed before they were added.
        case current = 3
        /// `RESET` (4): a new initial state follows.
        case reset = 4
    }

    /// The type of change.
    package var kind: Kind
    /// The targets changed; empty means every target.
    package var targetIDs: [Int32]
    /// The error that caused the change (for a `REMOVE`), or `nil`.
    package var cause: RPCStatus?
    /// A token to resume the given targets with, or `nil` when absent (proto3 cannot tell an empty token from
    /// none; an empty one is `nil` too).
    package var resumeToken: [UInt8]?
    /// The consistent read time of the given targets, or `nil`.
    package var readTime: Timestamp?

    /// A target change from its parts.
    package init(
        kind: Kind, targetIDs: [Int32] = [], cause: RPCStatus? = nil, resumeToken: [UInt8]? = nil,
        readTime: Timestamp? = nil
    ) {
        self.kind = kind
        self.targetIDs = targetIDs
        self.cause = cause
        self.resumeToken = resumeToken
        self.readTime = readTime
    }

    /// Decodes the fields of the current message of `reader`; unknown fields are skipped, `target_ids`
    /// packed or not.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data or a `target_change_type` that
    ///   `firestore.proto` does not define.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        self.init(kind: .noChange)
        while let field = try reader.nextField() {
            switch field.number {
            case 1:
                let raw = try reader.readInt32(field, "target_change_type")
                guard let kind = Kind(rawValue: raw) else {
                    throw reader.failure(
                        "unknown TargetChangeType \(raw)", at: field.offset, field: "target_change_type")
                }
                self.kind = kind
            case 2: try reader.readInt32s(field, "target_ids", into: &targetIDs)
            case 3:
                cause = try reader.readMessage(field, "cause") { (nested) throws(FirestoreError) in
                    try RPCStatus(reading: &nested)
                }
            case 4:
                let token = try reader.readByteArray(field, "resume_token")
                resumeToken = token.isEmpty ? nil : token
            case 6:
                readTime = try reader.readMessage(field, "read_time") { (nested) throws(FirestoreError) in
                    try Timestamp(reading: &nested)
                }
            default: try reader.skip(field)
            }
        }
    }
}
