import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The result of one batchGet call.
package struct BatchGetResponse: Sendable, Hashable {
    /// Found documents, keyed by resource name compared byte for byte (the server may answer out of request
    /// order; `c/\u{E9}` and `c/e\u{301}` are two documents).
    package var found: [ByteExactName: Document]
    /// Resource names of the requested documents that do not exist.
    package var missing: [String]
    /// The newest `readTime` of the stream.
    package var readTime: Timestamp?
    /// The ID of the transaction a `newTransaction` read began, or `nil`.
    package var transaction: String?
    /// Size of the response body in bytes (after decompression); 0 when decoded from JSON directly.
    package var responseBytes: Int = 0
}
