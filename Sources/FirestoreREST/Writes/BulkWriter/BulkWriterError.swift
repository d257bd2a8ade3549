import FirestoreWire

/// Why one ``BulkWriter`` write failed, as the Node SDK's `BulkWriterError`: the server's (or the transport's) error
/// for that write, the document, the kind of write and how many attempts have failed so far. The error callback
/// (``BulkWriter/onWriteError(_:)``) sees one per failed attempt; ``BulkWriter/Operation/result`` throws the last.
public struct BulkWriterError: Error, Sendable, CustomStringConvertible {
    /// The error of the last attempt: a write's own `status` (e.g. `.alreadyExists` for a create of an existing
    /// document), or the whole request's failure (then every write of the request has it).
    public let error: FirestoreError
    /// The document written.
    public let document: DocumentReference
    /// The kind of write.
    public let operationType: BulkWriter.OperationType
    /// How many attempts have failed, this one included (1 after the first failure).
    public let failedAttempts: Int

    /// An error as a BulkWriter reports it.
    public init(
        error: FirestoreError, document: DocumentReference, operationType: BulkWriter.OperationType,
        failedAttempts: Int
    ) {
        self.error = error
        self.document = document
        self.operationType = operationType
        self.failedAttempts = failedAttempts
    }

    /// The error's code (`error.code`).
    public var code: FirestoreError.Code { error.code }
    /// The error's message (`error.message`).
    public var message: String { error.message }

    /// `create of fruits/apple failed (attempt 1): already-exists (HTTP 409): ...`.
    public var description: String {
        "\(operationType.rawValue) of \(document.path) failed (attempt \(failedAttempts)): \(error)"
    }
}
