import FirestoreWire

/// The gRPC method paths of the Firestore service (`service Firestore` in `google/firestore/v1/firestore.proto`,
/// googleapis/googleapis); a call is `POST {base}/{package}.{Service}/{Method}` (`PROTOCOL-HTTP2.md`, `Path`).
package enum FirestoreGRPCMethod {
    /// `rpc Listen(stream ListenRequest) returns (stream ListenResponse)`: the realtime change stream.
    package static let listen = "/google.firestore.v1.Firestore/Listen"
    /// `rpc GetDocument(GetDocumentRequest) returns (Document)`.
    package static let getDocument = "/google.firestore.v1.Firestore/GetDocument"
    /// `rpc RunQuery(RunQueryRequest) returns (stream RunQueryResponse)`.
    package static let runQuery = "/google.firestore.v1.Firestore/RunQuery"
    /// `rpc BatchGetDocuments(BatchGetDocumentsRequest) returns (stream BatchGetDocumentsResponse)`.
    package static let batchGetDocuments = "/google.firestore.v1.Firestore/BatchGetDocuments"
    /// `rpc RunAggregationQuery(RunAggregationQueryRequest) returns (stream RunAggregationQueryResponse)`.
    package static let runAggregationQuery = "/google.firestore.v1.Firestore/RunAggregationQuery"
    /// `rpc Commit(CommitRequest) returns (CommitResponse)`.
    package static let commit = "/google.firestore.v1.Firestore/Commit"
    /// `rpc BeginTransaction(BeginTransactionRequest) returns (BeginTransactionResponse)`.
    package static let beginTransaction = "/google.firestore.v1.Firestore/BeginTransaction"
    /// `rpc Rollback(RollbackRequest) returns (google.protobuf.Empty)`.
    package static let rollback = "/google.firestore.v1.Firestore/Rollback"
    /// `rpc ListDocuments(ListDocumentsRequest) returns (ListDocumentsResponse)`.
    package static let listDocuments = "/google.firestore.v1.Firestore/ListDocuments"
    /// `rpc ListCollectionIds(ListCollectionIdsRequest) returns (ListCollectionIdsResponse)`.
    package static let listCollectionIds = "/google.firestore.v1.Firestore/ListCollectionIds"
    /// `rpc PartitionQuery(PartitionQueryRequest) returns (PartitionQueryResponse)`.
    package static let partitionQuery = "/google.firestore.v1.Firestore/PartitionQuery"
    /// `rpc BatchWrite(BatchWriteRequest) returns (BatchWriteResponse)`.
    package static let batchWrite = "/google.firestore.v1.Firestore/BatchWrite"
}
