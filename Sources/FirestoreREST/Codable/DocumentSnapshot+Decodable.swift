import FirestoreWire

/// A missing document as a value: `nil` for an optional type
/// (`CodableFieldCaseTests.c13MissingDocumentIsNilForAnOptionalAndNotFoundOtherwise`).
private protocol OptionalDecodingTarget {
    static var missingDocumentValue: Self { get }
}

extension Optional: OptionalDecodingTarget {
    fileprivate static var missingDocumentValue: Self { nil }
}

extension DocumentSnapshot {
    /// The document decoded into `type`, as the Firebase Apple SDK's `data(as:)`.
    ///
    /// ``DocumentID`` properties get this document's ID or reference; ``DocumentReference`` fields are made with
    /// this snapshot's client. A missing document is `nil` when `type` is optional (`data(as: User?.self)`),
    /// and an error otherwise (`CodableFieldCaseTests.c13...`; stable, documented behaviour).
    /// - Throws: ``FirestoreError`` `.notFound` (`users/nobody: document does not exist`) for a missing document
    ///   and a non-optional `type`; ``DocumentDecodingFailure`` when the fields do not decode: its
    ///   `description` is the short form naming the document and field path
    ///   (`fruits/u2: name: expected String, found integerValue`), its ``DocumentDecodingFailure/error`` the
    ///   `DecodingError` with the coding path (`CodableFieldCaseTests.c12RaiseThrowsTheFailureAndNoPartialList`).
    /// - Complexity: O(n) in the size of the document.
    public func data<T: Decodable>(as type: T.Type, decoder: FirestoreDecoder = FirestoreDecoder()) throws -> T {
        guard let document else {
            if let optional = T.self as? any OptionalDecodingTarget.Type, let none = optional.missingDocumentValue as? T
            {
                return none
            }
            throw FirestoreError(code: .notFound, message: "\(reference.path): document does not exist")
        }
        do {
            return try decoder.decode(type, from: .map(document.fields), in: reference)
        } catch let error as DecodingError {
            // A `DecodingError` prints as `DecodingError.typeMismatch: expected value of type String. Path: ...`:
            // the failure keeps it and reads like the package's other errors.
            throw DocumentDecodingFailure(documentPath: reference.path, error: error)
        }
    }
}
