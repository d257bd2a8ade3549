import FirestoreWire

/// One call of `rpc Listen(stream ListenRequest) returns (stream ListenResponse)` (`google/firestore/v1/
/// firestore.proto`): the client adds and removes targets with ``send(_:)``, the server's messages arrive in
/// ``responses``. The Listen feed (FirestoreFeed's `WatchStream`) drives it; ``GRPCListenCall`` runs it over
/// gRPC, and FirestoreTesting records it into a cassette or replays it from one.
///
/// - ``responses`` is iterated by one task. It finishes normally when the server ends the call with status
///   `OK`, and throws a ``FirestoreError`` otherwise (the server's status, a transport failure, `.cancelled`
///   after ``cancel()`` or when the iterating task is cancelled).
/// - ``send(_:)`` and ``cancel()`` may be called from any task or thread; neither blocks.
package protocol ListenCall: AnyObject, Sendable {
    /// The server's messages, in order.
    associatedtype Responses: AsyncSequence<ListenResponse, any Error>

    /// Queues `request` for the open request stream.
    /// - Throws: ``FirestoreError`` when the request cannot be sent (after a half-close, or too large); once the
    ///   call has ended a request is dropped without an error: ``responses`` says why it ended.
    func send(_ request: ListenRequest) throws(FirestoreError)

    /// The server's messages, decoded. Iterate from one task only.
    var responses: Responses { get }

    /// Ends the call now; ``responses`` then throws `.cancelled` after what was already received. Does nothing
    /// once the call has ended.
    func cancel()

    /// Ends the call as ``cancel()`` does, and makes sure the next call does not run on the same connection: the
    /// caller found the call dead (it stopped answering), so its connection is suspect. Default: ``cancel()``.
    func abandon()

    /// Checks the call's connection with a transport-level probe where there is one (an HTTP/2 PING): a connection
    /// that does not answer ends the call with `.unavailable`. Default: nothing.
    func checkConnection()
}

extension ListenCall {
    /// Nothing: a call without a connection of its own has none to check.
    package func checkConnection() {}

    /// ``cancel()``: a call without a connection of its own has nothing else to leave.
    package func abandon() {
        cancel()
    }
}
