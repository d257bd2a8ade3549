import FirestoreREST
import Foundation
import Synchronization

/// A transport that records every request and answers it as the server would on success: a commit with one
/// write result per write, a GET with a document of the requested name. Nothing leaves the process. A client
/// using ``FirestoreProtocol/grpc`` makes its calls on ``rpc`` instead (``CapturingRPCChannel``); an
/// ``FirestoreProtocol/automatic`` one keeps to REST.
final class CapturingTransport: RPCTransport {
    static let baseURL = "http://conformance.invalid/v1/"
    private let captured = Mutex<[HTTPRequest]>([])
    /// The gRPC calls of a `.grpc` client.
    let rpc = CapturingRPCChannel()
    let rpcTimeout: Double? = nil
    let rpcConcurrency = 1
    var automaticUsesGRPC: Bool { false }

    func makeRPCChannel(for firestore: Firestore) throws(FirestoreError) -> any RPCChannel { rpc }

    /// The requests sent so far, in order.
    var requests: [HTTPRequest] { captured.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        captured.withLock { $0.append(request) }
        let time = "2024-01-02T03:04:05.123456Z"
        let body: JSONValue
        if request.method == "GET" {
            body = [
                "name": .string(Self.resourceName(of: request)), "createTime": .string(time),
                "updateTime": .string(time),
            ]
        } else {
            let writes = (try? JSONValue.parse(request.body ?? Data()))?["writes"]?.arrayValue ?? []
            body = [
                "writeResults": .array(writes.map { _ in ["updateTime": .string(time)] }),
                "commitTime": .string(time),
            ]
        }
        return HTTPResponse(
            status: 200, headers: [HTTPHeader("Content-Type", "application/json")],
            body: body.serialized())
    }

    /// The resource named by a request URL: the percent-decoded part after `/v1/`, without a query string.
    static func resourceName(of request: HTTPRequest) -> String {
        var resource = request.url.hasPrefix(baseURL) ? String(request.url.dropFirst(baseURL.count)) : request.url
        if let query = resource.firstIndex(of: "?") { resource = String(resource[..<query]) }
        return resource.removingPercentEncoding ?? resource
    }
}
