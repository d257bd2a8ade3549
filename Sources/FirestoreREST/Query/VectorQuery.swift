import FirestoreWire

/// A nearest-neighbour search over a query's documents: the `limit` documents whose vector field is nearest to a
/// query vector, nearest first (Firestore docs, "Search with vector embeddings":
/// https://cloud.google.com/firestore/docs/vector-search ; the REST `StructuredQuery.findNearest`, REST reference
/// https://cloud.google.com/firestore/docs/reference/rest/v1/StructuredQuery#FindNearest ; the SDKs' `VectorQuery`).
/// Make one with `query.findNearest(vectorField:queryVector:limit:distanceMeasure:distanceResultField:distanceThreshold:)`.
///
/// ```swift
/// let nearest = try await db.collection("items").whereField("color", isEqualTo: "red")
///     .findNearest(vectorField: "embedding", queryVector: [0.1, 0.3, 0.5], limit: 3,
///                  distanceMeasure: .euclidean, distanceResultField: "distance")
///     .getDocuments()
/// for item in nearest.documents { print(item.documentID, item.get("distance") ?? .null) }
/// ```
///
/// The base query's filters apply first (production needs a vector index on the field, with the filtered fields
/// in a composite one). Only documents whose field holds a vector of the query vector's dimension take part: a
/// document without the field, with an array instead of a vector or with a vector of another dimension is left out.
/// A vector query is run once; it cannot be listened to (the SDKs have no listener for it either).
///
/// What the emulator does (`VectorSearchLiveTests`): the distances are those of ``DistanceMeasure``; ties keep
/// document-ID order; `distanceThreshold` keeps the documents at or below it (at or above it for
/// ``DistanceMeasure/dotProduct``); the base query's `order(by:)` is ignored, while a `limit`, an `offset` or a
/// cursor fail with `invalid-argument` ("A query limit cannot be used with FindNearest"); a `select` that does not
/// list ``distanceResultField`` drops the distance; a result field that names an existing field replaces its value;
/// a dotted result field (`"m.d"`) is written as one top-level field named `m.d`.
public struct VectorQuery: Sendable {
    /// The query whose documents are searched (its filters apply before the search).
    public let query: Query
    /// The field holding each document's vector.
    public let vectorField: FieldPath
    /// The vector to search near.
    public let queryVector: VectorValue
    /// How many documents to return at most (1 ... 1000).
    public let limit: Int
    /// How distances are measured.
    public let distanceMeasure: DistanceMeasure
    /// The field of each returned document that receives its distance (a `doubleValue`), or `nil` for none. Sent as
    /// the REST `distance_result_field` string.
    public let distanceResultField: String?
    /// Only documents at most this far (for ``DistanceMeasure/dotProduct``: with at least this product) are
    /// returned; `nil` for no threshold.
    public let distanceThreshold: Double?
    private let pendingError: FirestoreError?

    init(
        query: Query, vectorField: Result<FieldPath, FirestoreError>, queryVector: VectorValue, limit: Int,
        distanceMeasure: DistanceMeasure, distanceResultField: String?, distanceThreshold: Double?
    ) {
        self.query = query
        self.vectorField = (try? vectorField.get()) ?? .documentID
        self.queryVector = queryVector
        self.limit = limit
        self.distanceMeasure = distanceMeasure
        self.distanceResultField = distanceResultField
        self.distanceThreshold = distanceThreshold
        pendingError = Self.check(
            vectorField: vectorField, queryVector: queryVector, limit: limit, distanceResultField: distanceResultField,
            distanceThreshold: distanceThreshold)
    }

    /// The first invalid input, as the Node SDK checks them before sending (`findNearest()`), or `nil`.
    private static func check(
        vectorField: Result<FieldPath, FirestoreError>, queryVector: VectorValue, limit: Int,
        distanceResultField: String?, distanceThreshold: Double?
    ) -> FirestoreError? {
        if case .failure(let error) = vectorField {
            return .invalidArgument("findNearest: invalid vectorField: \(error.message)")
        }
        if queryVector.array.isEmpty { return .invalidArgument("findNearest: the query vector is empty") }
        if !(1...1000).contains(limit) {
            return .invalidArgument("findNearest: limit must be 1 ... 1000, got \(limit)")
        }
        if distanceResultField?.isEmpty == true {
            return .invalidArgument("findNearest: distanceResultField is empty (pass nil for none)")
        }
        if let distanceThreshold, !distanceThreshold.isFinite {
            return .invalidArgument("findNearest: distanceThreshold must be a finite number, got \(distanceThreshold)")
        }
        return nil
    }

    /// The REST StructuredQuery JSON: the base query's (``Query/structuredQuery()``) with `findNearest`:
    /// `{"vectorField": {"fieldPath"}, "queryVector": Value, "distanceMeasure", "limit": n,
    /// "distanceResultField"?, "distanceThreshold"?}`, `limit` (an `Int32Value`) and `distanceThreshold` (a
    /// `DoubleValue`) as plain JSON numbers, as proto3 JSON writes wrappers.
    /// - Throws: ``FirestoreError`` `.invalidArgument`, before anything is sent, for an invalid base query, an invalid
    ///   vector field path, an empty query vector, a limit outside 1 ... 1000, an empty result field or a threshold
    ///   that is not finite.
    package func structuredQuery() throws(FirestoreError) -> JSONValue {
        try structured().restJSON
    }

    /// The wire model (``StructuredQuery``): the base query's with ``StructuredQuery/findNearest``.
    /// - Throws: as ``structuredQuery()``.
    package func structured() throws(FirestoreError) -> StructuredQuery {
        if let pendingError { throw pendingError }
        var structured = try query.structured()
        structured.findNearest = StructuredQuery.FindNearest(
            vectorField: vectorField, queryVector: queryVector.firestoreValue, distanceMeasure: distanceMeasure,
            limit: limit, distanceResultField: distanceResultField, distanceThreshold: distanceThreshold)
        return structured
    }

    /// Runs the search once (runQuery) and returns the documents nearest first.
    /// - Parameter readTime: read as of this time (within the last hour in production), or `nil` for now.
    /// - Throws: ``FirestoreError``: `.invalidArgument` before sending for an invalid base query, an invalid vector
    ///   field path, an empty query vector, a limit outside 1 ... 1000, an empty result field or a threshold that is
    ///   not finite; the server's, e.g. `.invalidArgument` for a base query with a limit, an offset or a cursor, or
    ///   `.failedPrecondition` for a missing vector index (production); or the transport's.
    public func getDocuments(readTime: Timestamp? = nil) async throws -> VectorQuerySnapshot {
        let firestore = query.firestore
        let response = try await firestore.runQuery(
            parent: try query.parentPath(), structuredQuery: try structured(), readTime: readTime)
        return VectorQuerySnapshot(
            query: self,
            documents: response.documents.map {
                DocumentSnapshot(firestore: firestore, document: $0, readTime: response.readTime)
            },
            readTime: response.readTime)
    }

    /// Runs the search and decodes its documents into `type`: ``getDocuments(readTime:)`` then
    /// ``VectorQuerySnapshot/documents(as:decoder:strategy:)``.
    /// - Throws: as ``getDocuments(readTime:)``; with `.raise`, the first decoding failure.
    public func getDocuments<T: Decodable>(
        as type: T.Type, decoder: FirestoreDecoder = FirestoreDecoder(), strategy: DecodingFailureStrategy = .raise
    ) async throws -> DecodedDocuments<T> {
        try await getDocuments().documents(as: type, decoder: decoder, strategy: strategy)
    }
}
