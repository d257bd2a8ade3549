import FirestoreREST
import Foundation
import Synchronization

/// A transport that records every request and answers from a script, for tests of request sequences
/// (transactions, batches, paging, polling) without a server. The script is either a function of the request
/// and its index (`respond(request, index)`, counting requests from 0) or a list of answers, one per request.
package final class ScriptedTransport: HTTPTransport {
    /// One scripted answer.
    package enum Answer: Sendable {
        /// A response with a text body and no headers.
        case response(status: Int, body: String)
        /// A response with headers and a text body.
        case responseWithHeaders(status: Int, headers: [HTTPHeader], body: String)
        /// The request fails with this error.
        case failure(FirestoreError)
    }

    private let log = Mutex<[HTTPRequest]>([])
    private let respond: @Sendable (HTTPRequest, Int) throws -> HTTPResponse

    /// Answers request number `index` (from 0) with `respond(request, index)`.
    package init(_ respond: @escaping @Sendable (HTTPRequest, Int) -> HTTPResponse) {
        self.respond = respond
    }

    /// Answers the requests with `answers` in order; a request past the last answer fails with `unavailable`
    /// ("script exhausted").
    package init(_ answers: [Answer]) {
        self.respond = { _, index in
            guard index < answers.count else {
                throw FirestoreError(code: .unavailable, message: "script exhausted")
            }
            switch answers[index] {
            case .response(let status, let body): return HTTPResponse(status: status, body: Data(body.utf8))
            case .responseWithHeaders(let status, let headers, let body):
                return HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
            case .failure(let error): throw error
            }
        }
    }

    /// The requests sent so far, in order.
    package var requests: [HTTPRequest] { log.withLock { $0 } }

    /// Each request as `METHOD resource` with the `/v1/projects/p/databases/(default)/documents` prefix cut:
    /// `POST :commit`, `GET /c/d`.
    package var calls: [String] {
        requests.map { request in
            let roots = ["http", "https"].map { "\($0)://test.invalid/v1/projects/p/databases/(default)/documents" }
            let root = roots.first { request.url.hasPrefix($0) }
            let path = root.map { String(request.url.dropFirst($0.count)) } ?? request.url
            return request.method + " " + path
        }
    }

    /// The parsed JSON bodies of the requests (`null` for none).
    package var bodies: [JSONValue] {
        requests.map { request in
            guard let body = request.body, let json = try? JSONValue.parse(body) else { return .null }
            return json
        }
    }

    package func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        let index = log.withLock { log in
            log.append(request)
            return log.count - 1
        }
        do {
            return try respond(request, index)
        } catch {
            throw FirestoreError(wrapping: error)
        }
    }

    /// A client for project `p` on this transport; its retry (and transaction back-off) waits run on `clock`.
    package func firestore(clock: any Clock<Duration> = ContinuousClock()) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://test.invalid/v1/",
            credentials: NoCredentials(), transport: self, isEmulator: false, retryPolicy: RetryPolicy(clock: clock))
    }
}

extension HTTPResponse {
    /// A 200 response with a JSON body.
    package static func ok(_ json: JSONValue) -> HTTPResponse {
        HTTPResponse(status: 200, body: json.serialized())
    }

    /// An error response in the REST error form.
    package static func error(_ status: Int, _ code: String, _ message: String) -> HTTPResponse {
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
