/// What decoding a list of documents does with a document that does not decode, as the SDK's
/// `DecodingFailureStrategy` of `@FirestoreQuery` (firebase-semantics.md §3.2; field case C-12).
public enum DecodingFailureStrategy: Sendable, Hashable {
    /// Keep the documents that decode and report the others as failures.
    case ignore
    /// Fail the whole list with the first failure: no partial list (the SDK's default).
    case raise
}

/// One document that did not decode: its path and the error.
public struct DocumentDecodingFailure: Error, Sendable, CustomStringConvertible {
    /// The document's path below the documents root, `fruits/u2`.
    public let documentPath: String
    /// The decoding error: a `DecodingError` whose context has the coding path, and whose `debugDescription`
    /// starts with the document path.
    public let error: any Error

    /// A failure of the document at `documentPath` (`fruits/u2`) with `error`.
    public init(documentPath: String, error: any Error) {
        self.documentPath = documentPath
        self.error = error
    }

    /// `fruits/u2: name: expected String, found integerValue`.
    public var description: String {
        let text = error.firestoreDecodingDescription
        return text.hasPrefix(documentPath + ": ") ? text : documentPath + ": " + text
    }
}

extension Error {
    /// A `DecodingError`'s `debugDescription` (which names the document and field path when it comes from
    /// ``FirestoreDecoder``), or the error's description.
    var firestoreDecodingDescription: String {
        switch self as? DecodingError {
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .keyNotFound(_, let context)?,
            .dataCorrupted(let context)?:
            return context.debugDescription
        case nil: return String(describing: self)
        @unknown default: return String(describing: self)
        }
    }
}
