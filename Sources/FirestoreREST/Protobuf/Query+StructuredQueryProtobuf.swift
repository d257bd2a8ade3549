import FirestoreWire

extension Query {
    /// This query as a serialized protobuf `google.firestore.v1.StructuredQuery` message
    /// (`google/firestore/v1/query.proto`): ``structured()`` printed by ``StructuredQuery/protobuf()``, so every rule
    /// of the REST encoding applies unchanged.
    /// - Throws: ``FirestoreError`` as ``structuredQuery()``; `.invalidArgument` for a limit or offset above
    ///   `Int32.max`.
    /// - Complexity: O(n) in the size of the query.
    package func structuredQueryProtobuf() throws(FirestoreError) -> [UInt8] {
        try structured().protobuf()
    }
}
