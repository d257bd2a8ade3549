import FirestoreWire

extension Firestore {
    /// Runs one unary or server-streaming gRPC call until it succeeds or may not be retried, decoding each message
    /// as it arrives, and returns the decoded result and the bytes of all messages (without gRPC framing).
    ///
    /// Every attempt fetches the metadata anew (``grpcMetadata()``: credentials checked as for REST). The server's
    /// `UNAUTHENTICATED` makes the credentials fetch a new token once (``Credentials/invalidate(refusedHeader:)``),
    /// as a REST `401` does. A failed attempt goes through the REST requests' own retry loop
    /// (``withRetries(method:cancelled:_:)``): retried when its code is retryable and the call is idempotent, or nothing
    /// reached the server; the server's `RetryInfo` delay is honoured as `Retry-After` is. Each attempt starts
    /// decoding from `initial` again.
    ///
    /// - Parameters:
    ///   - method: the method path (``FirestoreGRPCMethod``).
    ///   - request: the serialized request message.
    ///   - idempotent: whether sending the request twice is harmless.
    ///   - priority: the call's place in the client's ``RPCCallGate`` (as a REST request's in the connection pool).
    ///   - initial: the decoded result before any message.
    ///   - add: decodes one message into the result.
    /// - Throws: ``FirestoreError``: the last attempt's error (the server's status with its details, the
    ///   transport's, `.deadlineExceeded` after the transport's request timeout); what `add` throws;
    ///   `.failedPrecondition` when the transport cannot carry gRPC; `.cancelled` when the task is cancelled, or
    ///   with the client's shutdown message once it is shut down (``shutdown()``).
    func performRPC<Decoded>(
        _ method: String, request: [UInt8], idempotent: Bool, priority: HTTPRequest.Priority = .normal,
        initial: Decoded,
        add: (inout Decoded, [UInt8]) throws(FirestoreError) -> Void
    ) async throws -> (value: Decoded, bytes: Int) {
        let channel = try rpcChannel()
        let rpcTransport = transport as? any RPCTransport
        let timeout = rpcTransport?.rpcTimeout
        let gate = rpcState.gate(capacity: rpcTransport?.rpcConcurrency ?? 8)
        var refreshed = false
        var known: Set<String> = []
        // The method's name as REST spells it (`/google.firestore.v1.Firestore/RunQuery` is `runQuery`).
        let name = method.split(separator: "/").last.map { $0.prefix(1).lowercased() + $0.dropFirst() } ?? method
        return try await withRetries(
            method: name, cancelled: GRPCStreamingCall.cancelledError(url: grpcBaseURL + method)
        ) { attempt in
            while true {
                var authorization: String?
                let started = ContinuousClock.now
                do {
                    let metadata: [HTTPHeader]
                    do {
                        metadata = try await grpcMetadata()
                    } catch var error as FirestoreError {
                        error.requestWasNotSent = true
                        throw error
                    }
                    authorization = metadata.first { $0.matches("authorization") }?.value
                    if let authorization { known.insert(authorization) }
                    try await gate.enter(priority)
                    defer { gate.leave() }
                    let call = try channel.makeRPCCall(
                        method: method, request: request, metadata: metadata, timeout: timeout)
                    var decoded = initial
                    let bytes = try await Self.drain(call) { (message) throws(FirestoreError) in
                        try add(&decoded, message)
                    }
                    observe(method: name, status: "OK", attempt: attempt, bytes: bytes, since: started)
                    return (decoded, bytes)
                } catch let error as FirestoreError {
                    observe(
                        method: name, status: error.isServerStatus ? error.code.rawValue : "error", attempt: attempt,
                        bytes: 0, since: started)
                    // The channel's calls end with its own `.cancelled` when the client is shut down.
                    try lifecycle.check()
                    // One fresh token per call after the server refused one: not a retry.
                    if error.code == .unauthenticated, error.isServerStatus, !refreshed, let authorization,
                        await credentials.invalidate(refusedHeader: authorization)
                    {
                        refreshed = true
                        continue
                    }
                    throw FailedAttempt(
                        error: error.redacting(known: known), mayRetry: idempotent || error.requestWasNotSent,
                        serverDelay: error.retryAfter)
                }
            }
        }
    }

    /// Iterates `call`'s responses, handing each to `body`.
    /// - Returns: the bytes of all messages.
    /// - Throws: the call's error; what `body` throws (the call is then cancelled).
    private static func drain<Call: RPCCall>(_ call: Call, _ body: ([UInt8]) throws(FirestoreError) -> Void)
        async throws -> Int
    {
        var bytes = 0
        do {
            for try await message in call.responses {
                bytes += message.count
                try body(message)
            }
        } catch {
            call.cancel()
            throw error
        }
        return bytes
    }

    /// This client's shared gRPC channel (``RPCClientState``).
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the transport does not carry gRPC calls; the
    ///   transport's error when it cannot make a channel.
    func rpcChannel() throws(FirestoreError) -> any RPCChannel {
        try lifecycle.check()
        guard let transport = transport as? any RPCTransport else {
            throw FirestoreError(
                code: .failedPrecondition,
                message: "the transport (\(type(of: transport))) cannot carry gRPC calls; use the REST protocol")
        }
        return try rpcState.channel { () throws(FirestoreError) in try transport.makeRPCChannel(for: self) }
    }

    /// Runs `grpc` or `rest` as ``wireProtocol`` says: ``FirestoreProtocol/automatic`` runs `grpc` when the
    /// transport carries gRPC (``RPCTransport/automaticUsesGRPC``) and HTTP/2 was not refused in the last 5 minutes, and runs `rest` after `grpc` failed
    /// for want of HTTP/2 (``FirestoreError`` `lacksHTTP2` or `mayLackHTTP2`) or because the server has no such gRPC
    /// method (`unimplemented`, e.g. a gRPC proxy that routes only Listen): nothing reached the server's Firestore
    /// service, so even a commit may be sent again. The client then keeps to REST for 5 minutes, except when REST
    /// answers `unimplemented` as well: the method is missing on both wires (the Firestore emulator's
    /// `PartitionQuery`, `RPCRoutingTests.automaticKeepsGRPCWhenBothWiresLackTheMethod`), so the client keeps gRPC
    /// and the caller gets REST's error.
    /// - Throws: the error of the protocol used last.
    func routed<Result>(grpc: () async throws -> Result, rest: () async throws -> Result) async throws -> Result {
        switch wireProtocol {
        case .rest:
            return try await rest()
        case .grpc:
            return try await grpc()
        case .automatic:
            guard let rpcTransport = transport as? any RPCTransport, rpcTransport.automaticUsesGRPC,
                rpcState.triesGRPC()
            else { return try await rest() }
            do {
                return try await grpc()
            } catch let error as FirestoreError where error.lacksHTTP2 || error.mayLackHTTP2 {
                rpcState.noteRefusal()
                return try await rest()
            } catch let error as FirestoreError where error.code == .unimplemented {
                let result: Result
                do {
                    result = try await rest()
                } catch let restError as FirestoreError where restError.code == .unimplemented {
                    throw restError
                } catch {
                    rpcState.noteRefusal()
                    throw error
                }
                rpcState.noteRefusal()
                return result
            }
        }
    }
}
