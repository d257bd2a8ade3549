import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The documents of one runQuery call and the stream's metadata (REST reference:
/// `projects.databases.documents.runQuery`, a stream of `RunQueryResponse`).
package struct RunQueryResponse: Sendable, Hashable {
    /// The documents in query order.
    package var documents: [Document]
    /// The newest `readTime` of the stream: the time the result is consistent at.
    package var readTime: Timestamp?
    /// The total of `skippedResults` (rows an `offset` skipped).
    package var skippedResults: Int
    /// The ID of the transaction a `newTransaction` read began (the stream's first element), or `nil`.
    package var transaction: String?
    /// Size of the response body in bytes (after decompression); 0 when decoded from JSON directly.
    package var responseBytes: Int = 0
}
