extension GRPCChannel: RPCChannel {
    /// A ``GRPCRPCCall`` on this channel: `metadata` plus `grpc-timeout` (``GRPCTimeout``) when there is a
    /// deadline.
    /// - Throws: as ``makeCall(method:metadata:)`` and ``GRPCStreamingCall/send(_:)``.
    package func makeRPCCall(method: String, request: [UInt8], metadata: [HTTPHeader], timeout: Double?)
        throws(FirestoreError) -> any RPCCall
    {
        var headers = metadata
        if let timeout { headers.append(HTTPHeader("grpc-timeout", GRPCTimeout.headerValue(seconds: timeout))) }
        return try GRPCRPCCall(try makeCall(method: method, metadata: headers), request: request, timeout: timeout)
    }
}
