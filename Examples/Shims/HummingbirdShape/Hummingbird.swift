// The smallest shape of Hummingbird 2's API (https://github.com/hummingbird-project/hummingbird, module `Hummingbird`)
// that the live-list route block of the DocC article "Live lists on the web" uses, so the block compiles here as
// written: the package cannot take Hummingbird (and SwiftNIO, swift-http-types) in, and a local module of that name
// could clash with a user's. `ReadmeSnippetTests` maps `import Hummingbird` in the block to `import HummingbirdShape` in
// its compiled file. Same names, labels and types as the real one for what the block touches; nothing listens:
// `runService()` returns at once. Not a product.

/// SwiftNIO's `ByteBuffer` (re-exported by Hummingbird), here only bytes made from a string.
public struct ByteBuffer: Sendable {
    public var bytes: [UInt8]

    public init(string: String) { bytes = Array(string.utf8) }
}

/// swift-http-types' `HTTPField`.
public struct HTTPField: Sendable {
    /// swift-http-types' `HTTPField.Name`.
    public struct Name: Sendable, Hashable {
        /// The name in lowercase.
        public let canonicalName: String

        init(_ name: String) { canonicalName = name.lowercased() }

        public static let contentType = Name("Content-Type")
        public static let cacheControl = Name("Cache-Control")
    }

    public var name: Name
    public var value: String
}

/// swift-http-types' `HTTPFields`: the fields in order.
public struct HTTPFields: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    private var fields: [HTTPField]

    public init(dictionaryLiteral elements: (HTTPField.Name, String)...) {
        fields = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    public func makeIterator() -> IndexingIterator<[HTTPField]> { fields.makeIterator() }
}

/// swift-http-types' `HTTPResponse.Status`.
public struct HTTPResponseStatus: Sendable {
    public let code: Int

    public static let ok = HTTPResponseStatus(code: 200)
}

/// Hummingbird's `ResponseBodyWriter`.
public protocol ResponseBodyWriter {
    mutating func write(_ buffer: ByteBuffer) async throws
    mutating func finish(_ trailingHeaders: HTTPFields?) async throws
}

/// Hummingbird's `ResponseBody`: a body written as the client reads it.
public struct ResponseBody: Sendable {
    let write: @Sendable (inout any ResponseBodyWriter) async throws -> Void

    public init(_ write: @escaping @Sendable (inout any ResponseBodyWriter) async throws -> Void) {
        self.write = write
    }
}

/// Hummingbird's `Response`.
public struct Response: Sendable {
    public var status: HTTPResponseStatus
    public var headers: HTTPFields
    public var body: ResponseBody

    public init(status: HTTPResponseStatus, headers: HTTPFields = [:], body: ResponseBody) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Hummingbird's `URI`, with its query parameters.
public struct URI: Sendable {
    /// Hummingbird's query parameters, read by name.
    public struct Parameters: Sendable {
        let values: [String: String]

        public func get(_ key: String) -> String? { values[key] }
    }

    public let queryParameters: Parameters
}

/// Hummingbird's `Request`.
public struct Request: Sendable {
    public let headers: HTTPFields
    public let uri: URI
}

/// Hummingbird's `BasicRequestContext`.
public struct BasicRequestContext: Sendable {}

/// Hummingbird's `Router` (with its default context).
public final class Router: @unchecked Sendable {
    private var routes: [String: @Sendable (Request, BasicRequestContext) async throws -> Response] = [:]

    public init() {}

    /// Adds a `GET` route at `path`.
    @discardableResult
    public func get(
        _ path: String, use handler: @escaping @Sendable (Request, BasicRequestContext) async throws -> Response
    ) -> Self {
        routes[path] = handler
        return self
    }
}

/// Hummingbird's `ApplicationConfiguration`.
public struct ApplicationConfiguration: Sendable {
    /// Hummingbird's `BindAddress`.
    public enum BindAddress: Sendable {
        case hostname(_ host: String = "127.0.0.1", port: Int = 8080)
    }

    public var address: BindAddress

    public init(address: BindAddress = .hostname()) { self.address = address }
}

/// Hummingbird's `Application`.
public struct Application: Sendable {
    let router: Router
    public let configuration: ApplicationConfiguration

    public init(router: Router, configuration: ApplicationConfiguration = ApplicationConfiguration()) {
        self.router = router
        self.configuration = configuration
    }

    /// Runs the server until SIGTERM or SIGINT; here it returns at once.
    public func runService() async throws {}
}
