import FirestoreWire

/// One document that did not decode: its path and the error. ``DocumentSnapshot/data(as:decoder:)`` (and so
/// `getDocument(as:)`, `getDocuments(as:)` and `documents(as:)`) throws it, so that `print(error)` shows
/// `fruits/u2: name: expected String, found integerValue` rather than the `DecodingError`'s long form; the
/// `DecodingError` itself, with its coding path, is ``error``.
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
