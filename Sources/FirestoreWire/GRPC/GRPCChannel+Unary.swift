extension GRPCChannel {
    /// Runs a unary call (one request, one response), e.g. ``FirestoreGRPCMethod/getDocument``: sends
    /// `request`, half-closes, and waits for the single response message and the status.
    ///
    /// - Parameters:
    ///   - method: the method path.
    ///   - request: the serialized request message.
    ///   - metadata: request headers (``Firestore/grpcMetadata()``).
    /// - Returns: the serialized response message.
    /// - Throws: ``FirestoreError``: whatever ``GRPCStreamingCall/responses`` throws; `.internal` when the server
    ///   ends the call with status 0 after zero or more than one message (gRPC's unary contract).
    package func unary(method: String, request: [UInt8], metadata: [HTTPHeader] = []) async throws -> [UInt8] {
        let call = try makeCall(method: method, metadata: metadata)
        try call.send(request)
        call.closeSend()
        var messages: [[UInt8]] = []
        for try await message in call.responses {
            messages.append(message)
        }
        guard messages.count == 1, let response = messages.first else {
            throw FirestoreError(
                code: .internal, message: "unary gRPC call \(method) returned \(messages.count) messages instead of 1")
        }
        return response
    }
}
