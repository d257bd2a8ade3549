import FirestoreWire

extension TransactionMode {
    /// Writes the fields of this mode's `google.firestore.v1.TransactionOptions` (`google/firestore/v1/common.proto`):
    /// `read_only = 2` (`ReadOnly`: `read_time = 2`) or `read_write = 3` (`ReadWrite`: `bytes retry_transaction = 1`).
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a retried transaction ID that is not base64.
    package func writeProtobuf(to writer: inout ProtobufWriter) throws(FirestoreError) {
        switch self {
        case .readWrite(let retrying):
            let retried = try retrying.map { (id) throws(FirestoreError) in try RPCTransactionID.bytes(id) }
            writer.writeMessageField(3) { readWrite in
                if let retried { readWrite.writeBytesField(1, retried) }
            }
        case .readOnly(let readTime):
            writer.writeMessageField(2) { readOnly in
                if let readTime { readOnly.writeMessageField(2) { readTime.writeProtobuf(to: &$0) } }
            }
        }
    }
}
