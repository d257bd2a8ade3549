/// The messages a ``GRPCStreamingCall`` receives, as an `AsyncSequence` of serialized messages; see
/// ``GRPCStreamingCall/responses`` for how it ends and what it throws.
///
/// It holds its call: iterating it keeps the call running even when nothing else references the call.
/// Iterate it from one task only (a second iterator traps, as with `AsyncThrowingStream`).
package struct GRPCResponseStream: AsyncSequence, Sendable {
    package typealias Element = [UInt8]

    /// The messages of each network read, as one batch.
    let base: AsyncThrowingStream<[[UInt8]], any Error>
    let call: GRPCStreamingCall

    package func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), call: call)
    }

    /// Takes messages one by one; each taken message frees its room in the call's receive buffer.
    package struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<[[UInt8]], any Error>.AsyncIterator
        let call: GRPCStreamingCall
        /// The current batch; the messages before `index` were taken (and emptied, to free them).
        var batch: [[UInt8]] = []
        var index = 0

        init(base: AsyncThrowingStream<[[UInt8]], any Error>.AsyncIterator, call: GRPCStreamingCall) {
            self.base = base
            self.call = call
        }

        /// The next message, or `nil` after `grpc-status` 0.
        /// - Throws: the call's ``FirestoreError``; `.cancelled` when the task was cancelled while waiting.
        package mutating func next() async throws -> [UInt8]? {
            while index >= batch.count {
                guard let next = try await base.next() else {
                    if !call.succeeded {
                        // The iterating task was cancelled (the stream then ends without an error of its own).
                        call.cancel()
                        throw GRPCStreamingCall.cancelledError(url: call.channel.baseURL + call.method)
                    }
                    return nil
                }
                batch = next
                index = 0
            }
            let message = batch[index]
            batch[index] = []
            index += 1
            call.didConsume(message)
            return message
        }
    }
}
