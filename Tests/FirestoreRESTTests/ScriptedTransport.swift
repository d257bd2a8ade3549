import Foundation
import Synchronization

@testable import FirestoreREST

/// A transport that records every request and answers with `respond(request, index)`, where `index` counts
/// requests from 0. For tests of request sequences (transactions, batches, paging) without a server.
final class ScriptedTransport: HTTPTransport {
    private let log = Mutex<[HTTPRequest]>([])
    private let respond: @Sendable (HTTPRequest, Int) -> HTTPResponse

    init(_ respond: @escaping @Sendable (HTTPRequest, Int) -> HTTPResponse) {
        self.respond = respond
    }

    /// The requests sent so far, in order.
    var requests: [HTTPRequest] { log.withLock { $0 } }

    /// Each request as `METHOD resource` with the `/v1/projects/p/databases/(default)/documents` prefix cut:
    /// `POST :commit`, `GET /c/d`.
    var calls: [String] {
        requests.map { request in
            let roots = ["http", "https"].map { "\($0)://test.invalid/v1/projects/p/databases/(default)/documents" }
            let root = roots.first { request.url.hasPrefix($0) }
            let path = root.map { String(request.url.dropFirst($0.count)) } ?? request.url
            return request.method + " " + path
        }
    }

    /// The parsed JSON bodies of the requests (`null` for none).
    var bodies: [JSONValue] {
        requests.map { request in
            guard let body = request.body, let json = try? JSONValue.parse(body) else { return .null }
            return json
        }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let index = log.withLock { log in
            log.append(request)
            return log.count - 1
        }
        return respond(request, index)
    }

    /// A client for project `p` on this transport.
    func firestore() throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://test.invalid/v1/",
            credentials: NoCredentials(), transport: self, isEmulator: false)
    }
}

extension HTTPResponse {
    /// A 200 response with a JSON body.
    static func ok(_ json: JSONValue) -> HTTPResponse {
        HTTPResponse(status: 200, body: json.serialized())
    }

    /// An error response in the REST error form.
    static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
        HTTPResponse(
            status: status,
            body: JSONValue.object([
                "error": [
                    "code": .integer(Int64(status)), "message": .string(message),
                    "status": .string(code),
                ]
            ]).serialized())
    }
}
