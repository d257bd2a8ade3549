/// The head of a gRPC response: the HTTP status and the header fields, as received before any message.
package struct GRPCResponseHead: Sendable, Hashable {
    /// The HTTP status, 200 for every gRPC response that got as far as the server's handler.
    package var status: Int
    /// The header fields in the order received; HTTP/2 names arrive in lower case.
    package var headers: [HTTPHeader]

    package init(status: Int, headers: [HTTPHeader]) {
        self.status = status
        self.headers = headers
    }

    /// The last value of header `name` (case-insensitive), or `nil`.
    package func value(for name: String) -> String? {
        headers.last { $0.matches(name) }?.value
    }

    /// Whether `content-type` is `application/grpc` or one of its `+format` / `;parameter` variants
    /// (`PROTOCOL-HTTP2.md`: `Content-Type → "content-type" "application/grpc" [("+proto" / "+json" / {custom})]`).
    package var isGRPC: Bool {
        guard let type = value(for: "content-type")?.lowercased(), type.hasPrefix("application/grpc") else {
            return false
        }
        let rest = type.dropFirst("application/grpc".count)
        return rest.isEmpty || rest.hasPrefix("+") || rest.hasPrefix(";")
    }
}
