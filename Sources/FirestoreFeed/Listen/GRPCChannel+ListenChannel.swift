import FirestoreWire

extension GRPCChannel: ListenChannel {
    /// A ``GRPCListenCall`` on this channel (``makeCall(method:metadata:)`` of ``FirestoreGRPCMethod/listen``).
    /// - Throws: as ``makeCall(method:metadata:)``.
    package func makeListenCall(metadata: [HTTPHeader]) throws(FirestoreError) -> any ListenCall {
        GRPCListenCall(try makeCall(method: FirestoreGRPCMethod.listen, metadata: metadata))
    }
}
