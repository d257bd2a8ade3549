/// An ``RPCCall`` over gRPC: a ``GRPCStreamingCall`` whose request went out whole and half-closed, with a deadline
/// the client enforces and the server's `grpc-status-details-bin` applied to its error (``GRPCStatusDetails``).
package final class GRPCRPCCall: RPCCall {
    /// The underlying call.
    package let call: GRPCStreamingCall
    /// The task that ends the call with `.deadlineExceeded` when its deadline passes; `nil` without a deadline.
    private let watchdog: Task<Void, Never>?

    /// Sends `request` on `call`, half-closes, and arms the deadline.
    /// - Parameters:
    ///   - call: a new call of a unary or server-streaming method.
    ///   - request: the serialized request message.
    ///   - timeout: seconds until the call ends with `.deadlineExceeded`, or `nil` for none.
    /// - Throws: ``FirestoreError`` as ``GRPCStreamingCall/send(_:)`` (a request over the size limit).
    package init(_ call: GRPCStreamingCall, request: [UInt8], timeout: Double?) throws(FirestoreError) {
        self.call = call
        try call.send(request)
        call.closeSend()
        guard let timeout, timeout.isFinite, timeout > 0 else {
            watchdog = nil
            return
        }
        let url = call.channel.baseURL + call.method
        watchdog = Task { [weak call] in
            do {
                try await Task.sleep(for: .milliseconds(Int64((timeout * 1000).rounded(.up))))
            } catch {
                return
            }
            call?.end(
                with: FirestoreError(
                    code: .deadlineExceeded,
                    message: "gRPC call \(Redaction.url(url)) passed its deadline of \(timeout) s"))
        }
    }

    deinit {
        watchdog?.cancel()
        call.cancel()
    }

    /// The responses; see ``RPCCall/responses``.
    package var responses: Responses { Responses(call: self) }

    /// Ends the call (``GRPCStreamingCall/cancel()``).
    package func cancel() {
        watchdog?.cancel()
        call.cancel()
    }

    /// The call's error with the status details of its trailers (or trailers-only head) applied.
    func detailed(_ error: FirestoreError) -> FirestoreError {
        guard error.isServerStatus else { return error }
        let headers = call.trailers + (call.responseHead?.headers ?? [])
        return GRPCStatusDetails(headers: headers)?.applied(to: error) ?? error
    }

    /// The call's messages; errors carry the server's status details.
    package struct Responses: AsyncSequence, Sendable {
        let call: GRPCRPCCall

        package func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(base: call.call.responses.makeAsyncIterator(), call: call)
        }

        /// Takes one message at a time.
        package struct AsyncIterator: AsyncIteratorProtocol {
            var base: GRPCResponseStream.AsyncIterator
            let call: GRPCRPCCall

            /// The next message, or `nil` after `grpc-status` 0.
            /// - Throws: ``FirestoreError`` as ``RPCCall/responses``.
            package mutating func next() async throws -> [UInt8]? {
                do {
                    guard let message = try await base.next() else {
                        call.watchdog?.cancel()
                        return nil
                    }
                    return message
                } catch let error as FirestoreError {
                    call.watchdog?.cancel()
                    throw call.detailed(error)
                }
            }
        }
    }
}
