#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// One HTTP response: status, header fields and the body exactly as received (already decompressed).
public struct HTTPResponse: Sendable, Hashable {
    /// HTTP status code, e.g. 200 or 404.
    public var status: Int
    /// Header fields in the order received.
    public var headers: [HTTPHeader]
    /// The body bytes.
    public var body: Data

    public init(status: Int, headers: [HTTPHeader] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of header `name` (case-insensitive), or `nil`.
    public func header(_ name: String) -> String? {
        headers.first { $0.matches(name) }?.value
    }
}
