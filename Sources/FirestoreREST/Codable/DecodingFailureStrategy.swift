import FirestoreWire

/// What decoding a list of documents does with a document that does not decode, as the SDK's
/// `DecodingFailureStrategy` of `@FirestoreQuery` (the Firebase Apple SDK's `DecodingFailureStrategy`; a document that
/// does not decode is skipped or fails the result, pinned by `CodableFieldCaseTests.c12...`).
public enum DecodingFailureStrategy: Sendable, Hashable {
    /// Keep the documents that decode and report the others as failures.
    case ignore
    /// Fail the whole list with the first failure: no partial list (the SDK's default).
    case raise
}

extension Error {
    /// A `DecodingError`'s `debugDescription` (which names the document and field path when it comes from
    /// ``FirestoreDecoder``), or the error's description.
    package var firestoreDecodingDescription: String {
        switch self as? DecodingError {
        case .typeMismatch(_, let context)?, .valueNotFound(_, let context)?, .keyNotFound(_, let context)?,
            .dataCorrupted(let context)?:
            return context.debugDescription
        case nil: return String(describing: self)
        @unknown default: return String(describing: self)
        }
    }
}
