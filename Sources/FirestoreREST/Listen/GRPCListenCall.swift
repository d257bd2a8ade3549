import FirestoreWire

/// A ``ListenCall`` over gRPC: a ``GRPCStreamingCall`` of ``FirestoreGRPCMethod/listen`` whose messages are
/// ``ListenRequest/protobuf`` out and ``ListenResponse/init(protobuf:)`` in. Ending, errors and buffering are the
/// streaming call's (``GRPCStreamingCall/responses``); a response that does not decode ends the iteration with
/// the decoder's `.dataLoss` error.
package final class GRPCListenCall: ListenCall {
    /// The underlying call.
    package let call: GRPCStreamingCall

    /// Wraps `call`, a call of ``FirestoreGRPCMethod/listen``.
    package init(_ call: GRPCStreamingCall) {
        self.call = call
    }

    /// Sends `request` serialized (``ListenRequest/protobuf``); see ``GRPCStreamingCall/send(_:)``.
    /// - Throws: as ``GRPCStreamingCall/send(_:)``.
    package func send(_ request: ListenRequest) throws(FirestoreError) {
        try call.send(request.protobuf)
    }

    /// The decoded responses.
    package var responses: Responses {
        Responses(base: call.responses)
    }

    /// Ends the call; see ``GRPCStreamingCall/cancel()``.
    package func cancel() {
        call.cancel()
    }

    /// Ends the call and retires its HTTP/2 connection (``GRPCStreamingCall/retireConnection()``), so the next call
    /// opens a new one.
    package func abandon() {
        call.retireConnection()
        call.cancel()
    }

    /// Sends an HTTP/2 PING on the call's connection (``GRPCStreamingCall/pingConnection()``).
    package func checkConnection() {
        call.pingConnection()
    }

    /// The call's messages decoded as ``ListenResponse``s.
    package struct Responses: AsyncSequence, Sendable {
        let base: GRPCResponseStream

        package func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: base.makeAsyncIterator())
        }

        /// Takes and decodes one message at a time.
        package struct AsyncIterator: AsyncIteratorProtocol {
            var base: GRPCResponseStream.AsyncIterator

            /// The next response, or `nil` after `grpc-status` 0.
            /// - Throws: the call's ``FirestoreError``; `.dataLoss` for a message that does not decode.
            package mutating func next() async throws -> ListenResponse? {
                guard let message = try await base.next() else { return nil }
                return try ListenResponse(protobuf: message)
            }
        }
    }
}
