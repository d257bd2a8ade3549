import FirestoreREST
import Foundation

/// How a unary or server-streaming gRPC call (every Firestore method but Listen) is kept in a cassette: as one
/// ``Cassette/Interaction``, so it is matched, ordered, paced and scrubbed like a REST exchange.
///
/// - request: `POST` to the method path (`/google.firestore.v1.Firestore/RunQuery`), the call's metadata as
///   headers (only the recorded ones, `authorization` scrubbed) plus `content-type: application/grpc`, and the
///   serialized request message as the body (stored as `bodyBase64`: protobuf is not text);
/// - response: status 200, `content-type: application/grpc`, the final `grpc-status` and, when the server sent
///   one, `grpc-message` (unescaped), and the body the server's messages each framed as on the wire (a zero flag,
///   4 bytes of big-endian length, the message; ``GRPCFrame``).
///
/// Of the status's `google.rpc.Status` details, what the client uses is kept: a `RetryInfo` delay as a
/// `grpc-status-details-bin` header (``GRPCStatusDetails/headerValue(number:)``), read back on replay as the live
/// call reads it; a `Help` link (a missing index's) is already in the recorded `grpc-message`, where the client put it.
package enum RPCExchange {
    /// The content type that marks a gRPC call.
    package static let contentType = "application/grpc"

    /// Whether `request` is a recorded gRPC call.
    package static func isRPC(_ request: Cassette.Request) -> Bool {
        request.header("content-type") == contentType
    }

    /// The HTTP form of a call to `method` at `baseURL` (``Firestore/grpcBaseURL``).
    package static func request(method: String, message: [UInt8], metadata: [HTTPHeader], baseURL: String)
        -> HTTPRequest
    {
        HTTPRequest(
            method: "POST", url: baseURL + method,
            headers: metadata.map { HTTPHeader($0.name.lowercased(), $0.value) }
                + [HTTPHeader("content-type", contentType)],
            body: Data(message), isIdempotent: false)
    }

    /// The HTTP form of a call's outcome: its messages and how it ended (`nil`: `OK`).
    /// - Parameter retryDelay: the `RetryInfo` delay the server's status carried (``FirestoreError/retryAfter``).
    /// - Throws: `FirestoreError` `.invalidArgument` for a message too long to frame.
    package static func response(messages: [[UInt8]], status: GRPCStatus?, retryDelay: Duration? = nil)
        throws(FirestoreError) -> HTTPResponse
    {
        var body: [UInt8] = []
        for message in messages { body += try GRPCFrame.encode(message) }
        var headers = [HTTPHeader("content-type", contentType), HTTPHeader("grpc-status", String(status?.number ?? 0))]
        if let status, !status.message.isEmpty { headers.append(HTTPHeader("grpc-message", status.message)) }
        if let status, !status.isOK, let retryDelay {
            let details = GRPCStatusDetails(message: status.message, retryDelay: retryDelay)
            headers.append(HTTPHeader(GRPCStatusDetails.headerName, details.headerValue(number: status.number)))
        }
        return HTTPResponse(status: 200, headers: headers, body: Data(body))
    }

    /// The status of a failed call as recorded: the server's (``FirestoreError/isServerStatus``), or `nil` for any
    /// other error.
    package static func status(of error: FirestoreError) -> GRPCStatus? {
        guard error.isServerStatus else { return nil }
        return GRPCStatus(number: Int(error.code.rpcCode), message: error.message)
    }

    /// The messages of a recorded response, and the error it ended with (`nil` for `OK`).
    /// - Throws: `FirestoreError` `.dataLoss` naming the cassette for a body that is not whole gRPC frames or a
    ///   response without a `grpc-status`.
    package static func outcome(of response: HTTPResponse, cassette name: String) throws(FirestoreError)
        -> (messages: [[UInt8]], error: FirestoreError?)
    {
        guard let raw = response.headers.last(where: { $0.matches("grpc-status") })?.value, let number = Int(raw)
        else {
            throw FirestoreError(code: .dataLoss, message: "\(name): a recorded gRPC call has no grpc-status")
        }
        var decoder = GRPCFrameDecoder()
        let messages: [[UInt8]]
        do {
            messages = try decoder.decode(Array(response.body))
        } catch {
            throw FirestoreError(code: .dataLoss, message: "\(name): a recorded gRPC body is not gRPC frames: \(error)")
        }
        guard !decoder.hasPartialFrame else {
            throw FirestoreError(code: .dataLoss, message: "\(name): a recorded gRPC body ends inside a frame")
        }
        let message = response.headers.last(where: { $0.matches("grpc-message") })?.value ?? ""
        let status = GRPCStatus(number: number, message: message)
        guard !status.isOK else { return (messages, nil) }
        return (messages, GRPCStatusDetails(headers: response.headers)?.applied(to: status.error) ?? status.error)
    }
}
