import FirestoreWire

/// Vector search builders, as the SDKs' `Query.findNearest` (Firestore docs, "Search with vector embeddings":
/// https://cloud.google.com/firestore/docs/vector-search). Like every builder they never throw: an invalid input is
/// kept and thrown by ``VectorQuery/getDocuments(readTime:)`` before anything is sent.
extension QueryRepresentable {
    /// The `limit` documents of this query whose `vectorField` (a dotted path) is nearest to `queryVector`, nearest
    /// first; see ``VectorQuery``.
    /// - Parameters:
    ///   - vectorField: the field holding each document's vector (a dotted path).
    ///   - queryVector: the vector to search near (at most 2,048 dimensions in production).
    ///   - limit: how many documents to return at most, 1 ... 1000.
    ///   - distanceMeasure: ``DistanceMeasure/euclidean``, ``DistanceMeasure/cosine`` or
    ///     ``DistanceMeasure/dotProduct``.
    ///   - distanceResultField: a field of each returned document to receive its distance (a `doubleValue`), or
    ///     `nil`.
    ///   - distanceThreshold: return only documents at most this far (for `.dotProduct`: with at least this
    ///     product), or `nil`.
    public func findNearest(
        vectorField: String, queryVector: VectorValue, limit: Int, distanceMeasure: DistanceMeasure,
        distanceResultField: String? = nil, distanceThreshold: Double? = nil
    ) -> VectorQuery {
        VectorQuery(
            query: query, vectorField: Result { () throws(FirestoreError) in try FieldPath(dotted: vectorField) },
            queryVector: queryVector, limit: limit, distanceMeasure: distanceMeasure,
            distanceResultField: distanceResultField, distanceThreshold: distanceThreshold)
    }

    /// ``findNearest(vectorField:queryVector:limit:distanceMeasure:distanceResultField:distanceThreshold:)-(String,VectorValue,_,_,_,_)``
    /// with the query vector given as its elements.
    public func findNearest(
        vectorField: String, queryVector: [Double], limit: Int, distanceMeasure: DistanceMeasure,
        distanceResultField: String? = nil, distanceThreshold: Double? = nil
    ) -> VectorQuery {
        findNearest(
            vectorField: vectorField, queryVector: VectorValue(queryVector), limit: limit,
            distanceMeasure: distanceMeasure, distanceResultField: distanceResultField,
            distanceThreshold: distanceThreshold)
    }

    /// ``findNearest(vectorField:queryVector:limit:distanceMeasure:distanceResultField:distanceThreshold:)-(String,VectorValue,_,_,_,_)``
    /// with ``FieldPath`` values, for names that hold dots or other special characters; the result field is sent
    /// as its canonical string (`description`).
    public func findNearest(
        vectorField: FieldPath, queryVector: VectorValue, limit: Int, distanceMeasure: DistanceMeasure,
        distanceResultField: FieldPath? = nil, distanceThreshold: Double? = nil
    ) -> VectorQuery {
        VectorQuery(
            query: query, vectorField: .success(vectorField), queryVector: queryVector, limit: limit,
            distanceMeasure: distanceMeasure, distanceResultField: distanceResultField?.description,
            distanceThreshold: distanceThreshold)
    }
}
