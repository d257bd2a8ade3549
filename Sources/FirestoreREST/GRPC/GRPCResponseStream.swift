/// The messages a ``GRPCStreamingCall`` receives, as an `AsyncSequence` of serialized messages; see
/// ``GRPCStreamingCall/responses`` for how it ends and what it throws.
///
/// It holds its call: iterating it keeps the call running even when nothing else references the call.
/// Iterate it from one task only (a second iterator traps, as with `AsyncThrowingStream`).
package struct GRPCResponseStream: AsyncSequence, Sendable {
    package typealias Element = [UInt8]

    let base: AsyncThrowingStream<[UInt8], any Error>
    let call: GRPCStreamingCall

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), call: call)
    }

    /// Takes messages one by one; each taken message frees its room in the call's receive buffer.
    package struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<[UInt8], any Error>.AsyncIterator
        let call: GRPCStreamingCall

        /// The next message, or `nil` after `grpc-status` 0.
        /// - Throws: the call's ``FirestoreError``; `.cancelled` when the task was cancelled while waiting.
        package mutating func next() async throws -> [UInt8]? {
            guard let message = try await base.next() else {
                if !call.succeeded {
                    // The iterating task was cancelled (the stream then ends without an error of its own).
                    call.cancel()
                    throw GRPCStreamingCall.cancelledError(url: call.channel.baseURL + call.method)
                }
                return nil
            }
            call.didConsume(message)
            return message
        }
    }
}
