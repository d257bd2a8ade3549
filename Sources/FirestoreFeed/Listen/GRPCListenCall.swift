import FirestoreWire

/// A ``ListenCall`` over gRPC: a ``GRPCStreamingCall`` of ``FirestoreGRPCMethod/listen`` whose messages are
/// ``ListenRequest/protobuf`` out and ``ListenResponse/init(protobuf:)`` in. Ending, errors and buffering are the
/// streaming call's (``GRPCStreamingCall/responses``); a response that does not decode ends the iteration with
/// `.internal` naming the bytes (a protocol error of that stream, which the feeds retry on a new one, keeping their
/// last good state; the decoder's `.dataLoss` reason is in the message).
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
            /// - Throws: the call's ``FirestoreError``; `.internal` for a message that does not decode
            ///   (``undecodable(_:_:)``).
            package mutating func next() async throws -> ListenResponse? {
                guard let message = try await base.next() else { return nil }
                do {
                    return try ListenResponse(protobuf: message)
                } catch {
                    throw GRPCListenCall.undecodable(message, error)
                }
            }
        }
    }

    /// The error for a Listen message that does not decode: `.internal`, with the message's size, its first 32 bytes
    /// in hex and the decoder's reason. Seen from the emulator restarted under a live stream; a feed reports it
    /// (`listenFailed`) and listens again, as it does for a document outside its query.
    static func undecodable(_ message: [UInt8], _ error: FirestoreError) -> FirestoreError {
        let shown = message.prefix(32).map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }
        let more = message.count > shown.count ? " +\(message.count - shown.count)" : ""
        return FirestoreError(
            code: .internal,
            message: "Listen: the server sent a message that does not decode as a ListenResponse (\(message.count) "
                + (message.count == 1 ? "byte" : "bytes") + ": \(shown.joined(separator: " "))\(more)): "
                + "\(error.message); a protocol error, not data")
    }
}
