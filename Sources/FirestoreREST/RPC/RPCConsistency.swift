import FirestoreWire

/// The `consistency_selector` oneof of Firestore's read requests (`google/firestore/v1/firestore.proto`): at most one
/// of a transaction ID (`bytes`), a new transaction (`TransactionOptions`) and a read time
/// (`google.protobuf.Timestamp`), whose field numbers differ from request to request.
package struct RPCConsistency: Sendable {
    /// The field number of `bytes transaction`.
    package var transaction: UInt32
    /// The field number of `TransactionOptions new_transaction`.
    package var newTransaction: UInt32
    /// The field number of `google.protobuf.Timestamp read_time`.
    package var readTime: UInt32

    /// `RunQueryRequest`: `transaction = 5`, `new_transaction = 6`, `read_time = 7`.
    package static let runQuery = RPCConsistency(transaction: 5, newTransaction: 6, readTime: 7)
    /// `BatchGetDocumentsRequest`: `transaction = 4`, `new_transaction = 5`, `read_time = 7`.
    package static let batchGetDocuments = RPCConsistency(transaction: 4, newTransaction: 5, readTime: 7)
    /// `RunAggregationQueryRequest`: `transaction = 4`, `new_transaction = 5`, `read_time = 6`.
    package static let runAggregationQuery = RPCConsistency(transaction: 4, newTransaction: 5, readTime: 6)

    /// Writes the one selector given, as ``Firestore`` `addConsistency` does for REST.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when more than one is given, or for a transaction ID that is
    ///   not base64.
    package func write(
        readTime: Timestamp?, transaction: String?, newTransaction: TransactionMode?, to writer: inout ProtobufWriter
    ) throws(FirestoreError) {
        let given = [readTime != nil, transaction != nil, newTransaction != nil].filter { $0 }.count
        guard given <= 1 else {
            throw .invalidArgument("a read takes one of readTime, transaction and newTransaction, not several")
        }
        if let transaction { writer.writeBytesField(self.transaction, try RPCTransactionID.bytes(transaction)) }
        if let newTransaction {
            try writer.writeMessageField(self.newTransaction) { (options) throws(FirestoreError) in
                try newTransaction.writeProtobuf(to: &options)
            }
        }
        if let readTime { writer.writeMessageField(self.readTime) { readTime.writeProtobuf(to: &$0) } }
    }
}
