import FirestoreREST
import Foundation
import Synchronization

/// A ``CapturingTransport``'s gRPC side: every call's method and request bytes are kept, and each is answered as
/// the server would on success (a `CommitResponse` with one write result per write, a `Document` of the requested
/// name for `GetDocument`). Nothing leaves the process.
final class CapturingRPCChannel: RPCChannel {
    struct Call: Sendable {
        let method: String
        let request: [UInt8]
    }

    private let captured = Mutex<[Call]>([])

    /// The calls made so far, in order.
    var calls: [Call] { captured.withLock { $0 } }

    func makeRPCCall(method: String, request: [UInt8], metadata: [HTTPHeader], timeout: Double?)
        throws(FirestoreError) -> any RPCCall
    {
        captured.withLock { $0.append(Call(method: method, request: request)) }
        return AnsweredCall(message: try Self.answer(method: method, request: request))
    }

    /// The success response to `request`.
    static func answer(method: String, request: [UInt8]) throws(FirestoreError) -> [UInt8] {
        let time = try Timestamp(seconds: 1_704_164_645, nanos: 123_456_000)
        var response = ProtobufWriter()
        switch method {
        case FirestoreGRPCMethod.getDocument:
            let name = try ProtobufReader.read(request, message: "GetDocumentRequest") {
                (reader) throws(FirestoreError) -> String in
                var name = ""
                while let field = try reader.nextField() {
                    if field.number == 1 { name = try reader.readString(field, "name") } else { try reader.skip(field) }
                }
                return name
            }
            response.writeStringField(1, name)
            response.writeMessageField(3) { time.writeProtobuf(to: &$0) }
            response.writeMessageField(4) { time.writeProtobuf(to: &$0) }
        case FirestoreGRPCMethod.commit:
            let writes = try ProtobufReader.read(request, message: "CommitRequest") {
                (reader) throws(FirestoreError) -> Int in
                var count = 0
                while let field = try reader.nextField() {
                    if field.number == 2 { count += 1 }
                    try reader.skip(field)
                }
                return count
            }
            for _ in 0..<writes {
                response.writeMessageField(1) { result in result.writeMessageField(1) { time.writeProtobuf(to: &$0) } }
            }
            response.writeMessageField(2) { time.writeProtobuf(to: &$0) }
        default:
            throw FirestoreError(code: .unimplemented, message: "the capturing channel does not answer \(method)")
        }
        return response.bytes
    }

    /// A call that answers with one message and ends OK.
    final class AnsweredCall: RPCCall {
        let responses: AsyncThrowingStream<[UInt8], any Error>

        init(message: [UInt8]) {
            responses = AsyncThrowingStream { continuation in
                continuation.yield(message)
                continuation.finish()
            }
        }

        func cancel() {}
    }
}
