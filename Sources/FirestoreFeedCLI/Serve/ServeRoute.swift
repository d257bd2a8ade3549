import FirestoreREST
import FirestoreTesting
import Foundation

/// What `firestore-feed serve` reads from a request: its path, the bearer token it carries (header or `?token=`), and
/// where its event stream resumes (the `Last-Event-ID` header, else `?lastEventId=`).
struct ServeRoute: Sendable, Equatable {
    /// The path without its query (`/events`).
    let path: String
    /// The tokens the request carries: the `Authorization: Bearer` header's and the `token` query parameter's.
    let tokens: [String]
    /// The id to resume after, or `nil` for a new client.
    let lastEventID: String?

    init(_ request: HTTPParsedRequest) {
        self.init(target: request.target, headers: request.headers)
    }

    init(target: String, headers: [HTTPHeader]) {
        let components = URLComponents(string: target)
        path = components?.percentEncodedPath ?? target
        let query = components?.queryItems ?? []
        func parameter(_ name: String) -> String? { query.first { $0.name == name }?.value }
        var tokens: [String] = []
        for header in headers where header.matches("authorization") {
            let words = header.value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if words.count == 2, words[0].lowercased() == "bearer" { tokens.append(String(words[1])) }
        }
        if let token = parameter("token") { tokens.append(token) }
        self.tokens = tokens
        lastEventID = headers.first { $0.matches("last-event-id") }?.value ?? parameter("lastEventId")
    }

    /// Whether one of the request's tokens is `token` (compared in a time that does not depend on where they differ).
    func carries(token: String) -> Bool {
        let expected = Array(token.utf8)
        return tokens.contains { candidate in
            let given = Array(candidate.utf8)
            guard given.count == expected.count else { return false }
            return zip(given, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }
}
