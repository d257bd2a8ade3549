/// One unary or server-streaming call of the Firestore service (every method but `Listen` and `Write`): the
/// request went out whole and half-closed when the call was made; the server's messages arrive in ``responses``.
/// ``GRPCRPCCall`` runs it over a ``GRPCChannel``; FirestoreTesting records it into a cassette or replays it.
///
/// ``responses`` is iterated by one task. It finishes normally when the server ends the call with status `OK`, and
/// throws a ``FirestoreError`` otherwise: the server's status with its `google.rpc.Status` details applied
/// (``GRPCStatusDetails``), `.deadlineExceeded` once the call's deadline passed, a transport failure, or
/// `.cancelled` after ``cancel()`` or when the iterating task is cancelled.
package protocol RPCCall: AnyObject, Sendable {
    /// The server's serialized messages, in order.
    associatedtype Responses: AsyncSequence<[UInt8], any Error>
    /// The server's messages. Iterate from one task only.
    var responses: Responses { get }
    /// Ends the call now; ``responses`` then throws `.cancelled`. Does nothing once the call has ended.
    func cancel()
}

/// Opens unary and server-streaming calls (``RPCCall``) to one server for one client: a ``GRPCChannel`` (one
/// HTTP/2 connection shared by its calls), or FirestoreTesting's recording and replaying channels.
package protocol RPCChannel: Sendable {
    /// Starts a call: sends `request` and half-closes the request stream.
    /// - Parameters:
    ///   - method: the method path, e.g. ``FirestoreGRPCMethod/runQuery``.
    ///   - request: the serialized request message.
    ///   - metadata: the request metadata (``Firestore/grpcMetadata()``), fetched anew for every call.
    ///   - timeout: the call's deadline in seconds from now (sent as `grpc-timeout`, and enforced by the client:
    ///     the call ends with `.deadlineExceeded` when it passes), or `nil` for none.
    /// - Throws: ``FirestoreError`` when the call cannot be set up; a failure of the call itself arrives through
    ///   its ``RPCCall/responses``.
    func makeRPCCall(method: String, request: [UInt8], metadata: [HTTPHeader], timeout: Double?)
        throws(FirestoreError) -> any RPCCall

    /// Ends every call with `.cancelled` and returns once the channel's threads and connections are gone; later
    /// calls end at once the same way. Nothing for a channel without threads or connections of its own.
    func close() async
}

extension RPCChannel {
    /// Nothing to close: a recording or replaying channel holds no thread or connection of its own.
    package func close() async {}
}
