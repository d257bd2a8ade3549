#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreError {
    /// Decodes a REST error from a response, in any of the three forms Firestore uses (a `google.rpc.Status`,
    /// `google/rpc/status.proto`; `FirestoreErrorTests`): an object
    /// `{"error":{"code":404,"message":"...","status":"NOT_FOUND"}}`, the same object wrapped in an array
    /// (`[{"error":{...}}]`), or an array of stream elements where an `{"error":{...}}` element follows some documents.
    ///
    /// When the body names no `status`, the code comes from the HTTP status (`google/rpc/code.proto`); a body
    /// that is not JSON (a proxy's HTML page) keeps its first 200 characters as the message, taken after the
    /// credentials in its first 4,096 bytes were replaced (``message``), so none is shown cut short.
    public init(status: Int, body: Data) {
        self.init(status: status, body: body, known: [])
    }

    /// ``init(status:body:)`` with `known` (the credentials the request carried) replaced in the message too.
    package init(status: Int, body: Data, known: [String]) {
        let parsed = try? JSONValue.parse(body)
        if let parsed, let error = Self.findErrorObject(in: parsed) {
            self = Self.decode(errorObject: error, httpStatus: status).redacting(known: known)
            return
        }
        let text = String(Redaction.text(String(decoding: body.prefix(4096), as: UTF8.self), known: known).prefix(200))
        self.init(code: Code.forHTTPStatus(status), message: text.isEmpty ? "HTTP \(status)" : text, httpStatus: status)
    }

    /// The message of a server error whose body gives none (the emulator answers a project ID it cannot take with
    /// `{"error":{"code":500,"status":"UNKNOWN"}}`): what was asked and what the server said, redacted,
    /// `POST projects/My_Project/databases/(default)/documents:runQuery: the server gave no message (it answered
    /// {"error":{"code":500,"status":"UNKNOWN"}})`.
    package static func noMessage(asked what: String, body: Data, known: Set<String>) -> String {
        let said = Redaction.text(String(decoding: body.prefix(4096), as: UTF8.self), known: Array(known))
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        let answer = said.isEmpty ? "an empty body" : String(said.prefix(200))
        return "\(what): the server gave no message (it answered \(answer))"
    }

    /// A `Retry-After` value (RFC 9110 §10.2.3): delay-seconds (`"120"`) or an HTTP date
    /// (`"Wed, 21 Oct 2015 07:28:00 GMT"`, measured from now; a date in the past is zero). Anything else is
    /// `nil`.
    package static func parseRetryAfter(_ text: String) -> Duration? {
        parseRetryAfter(text, now: Date())
    }

    /// ``parseRetryAfter(_:)`` with an HTTP date measured from `now` (injected by tests, so the distance is exact).
    package static func parseRetryAfter(_ text: String, now: Date) -> Duration? {
        let trimmed = text.filter { $0 != " " && $0 != "\t" }
        if !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
            return .seconds(Int64(trimmed) ?? Int64(Int32.max))
        }
        guard let date = HTTPDate.parse(text) else { return nil }
        let seconds = max(0, date.timeIntervalSince(now))
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// The `error` member of `json` or of the first array element that has one.
    package static func findErrorObject(in json: JSONValue) -> JSONValue? {
        switch json {
        case .object(let members): return members["error"]
        case .array(let elements):
            for element in elements { if let error = element["error"] { return error } }
            return nil
        default: return nil
        }
    }

    /// Decodes a `google.rpc.Status`-shaped error object (`code`, `message`, `status`); an `error` that is a
    /// bare string keeps the string as the message and takes its code from the HTTP status.
    package static func decode(errorObject: JSONValue, httpStatus: Int) -> FirestoreError {
        if case .string(let text) = errorObject {
            return FirestoreError(
                code: Code.forHTTPStatus(httpStatus == 200 ? 500 : httpStatus), message: text,
                httpStatus: httpStatus)
        }
        let message = errorObject["message"]?.stringValue ?? ""
        let code: Code
        if let status = errorObject["status"]?.stringValue, !status.isEmpty {
            code = Code(rawValue: status)
        } else if case .integer(let number)? = errorObject["code"], let status = Int(exactly: number) {
            code = Code.forHTTPStatus(status)
        } else {
            code = Code.forHTTPStatus(httpStatus)
        }
        var error = FirestoreError(code: code, message: message, httpStatus: httpStatus)
        error.isServerStatus = errorObject["status"]?.stringValue != nil
        return error
    }
}
