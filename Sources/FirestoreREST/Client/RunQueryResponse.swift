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
    /// How many elements of a REST body were decoded through their JSON trees rather than straight from their bytes
    /// (``Firestore/decodeRunQuery(body:bytesFirst:)``): 0 for a body of the common shape. Not compared: the two
    /// paths give equal responses.
    package var elementsThroughTrees = 0

    /// Equal documents, read time, skipped results, transaction and size (``elementsThroughTrees`` is how, not what).
    package static func == (lhs: RunQueryResponse, rhs: RunQueryResponse) -> Bool {
        lhs.documents == rhs.documents && lhs.readTime == rhs.readTime && lhs.skippedResults == rhs.skippedResults
            && lhs.transaction == rhs.transaction && lhs.responseBytes == rhs.responseBytes
    }

    /// Hashes what ``==(_:_:)`` compares.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(documents)
        hasher.combine(readTime)
        hasher.combine(skippedResults)
        hasher.combine(transaction)
        hasher.combine(responseBytes)
    }
}
