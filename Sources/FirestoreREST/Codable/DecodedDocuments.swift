import FirestoreWire

/// The documents of a query result decoded into `T`, with the documents that did not decode (pinned by
/// `CodableFieldCaseTests.c12IgnoreKeepsTheDecodableDocumentsAndListsTheFailure`).
///
/// Made by ``QuerySnapshot/documents(as:decoder:strategy:)`` or
/// ``init(decoding:as:decoder:strategy:)``; with ``DecodingFailureStrategy/raise`` the first failure is thrown
/// instead, so ``failures`` is then always empty.
public struct DecodedDocuments<T> {
    /// The decoded documents, in the order of the snapshots.
    public var values: [T]
    /// The documents that did not decode, in the order of the snapshots.
    public var failures: [DocumentDecodingFailure]

    /// A result made of its parts (for tests and test doubles).
    public init(values: [T], failures: [DocumentDecodingFailure]) {
        self.values = values
        self.failures = failures
    }

    /// Decodes each of `snapshots` with ``DocumentSnapshot/data(as:decoder:)``.
    /// - Parameters:
    ///   - type: the type each document decodes into.
    ///   - snapshots: the documents, in order.
    ///   - decoder: the decoder (its strategies) to use.
    ///   - strategy: ``DecodingFailureStrategy/raise`` throws the first failure and returns no partial list;
    ///     ``DecodingFailureStrategy/ignore`` keeps what decodes and lists the rest in ``failures``.
    /// - Throws: with `.raise`, the first document's error (a ``DocumentDecodingFailure`` naming the document
    ///   and field path, or ``FirestoreError`` `.notFound` for a snapshot of a missing document decoded into a
    ///   non-optional type).
    /// - Complexity: O(n) in the total size of the documents.
    public init(
        decoding snapshots: [DocumentSnapshot], as type: T.Type, decoder: FirestoreDecoder = FirestoreDecoder(),
        strategy: DecodingFailureStrategy = .raise
    ) throws where T: Decodable {
        var values: [T] = []
        values.reserveCapacity(snapshots.count)
        var failures: [DocumentDecodingFailure] = []
        for snapshot in snapshots {
            do {
                values.append(try snapshot.data(as: type, decoder: decoder))
            } catch {
                if strategy == .raise { throw error }
                failures.append(
                    error as? DocumentDecodingFailure
                        ?? DocumentDecodingFailure(documentPath: snapshot.reference.path, error: error))
            }
        }
        self.init(values: values, failures: failures)
    }
}

extension DecodedDocuments: Sendable where T: Sendable {}
