// The smallest shape of Vapor 4's API (https://github.com/vapor/vapor, module `Vapor`) that the live-list route block
// of README uses, so the block compiles here as written: the package cannot take Vapor (and SwiftNIO) in, and a local
// module of that name could clash with a user's. `ReadmeSnippetTests` maps `import Vapor` in the block to
// `import VaporShape` in its compiled file. Same names, labels and types as the real one for what the block touches;
// nothing listens: `execute()` returns at once. Not a product.

/// SwiftNIO's `ByteBuffer` (re-exported by Vapor), here only bytes made from a string.
public struct ByteBuffer: Sendable {
    public var bytes: [UInt8]

    public init(string: String) { bytes = Array(string.utf8) }
}

/// NIOHTTP1's `HTTPHeaders` (re-exported by Vapor): name-value pairs, names compared without case.
public struct HTTPHeaders: Sendable {
    private var pairs: [(String, String)]

    public init(_ headers: [(String, String)] = []) { pairs = headers }

    /// The first value of `name`.
    public func first(name: String) -> String? {
        pairs.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// NIOHTTP1's `HTTPResponseStatus` (re-exported by Vapor).
public struct HTTPResponseStatus: Sendable {
    public let code: Int

    public static let ok = HTTPResponseStatus(code: 200)
}

/// Vapor's `Environment`.
public struct Environment: Sendable {
    public let name: String

    /// The environment named by `--env` or `VAPOR_ENV` (here always development).
    public static func detect() throws -> Environment { Environment(name: "development") }
}

/// Vapor's `BodyStreamResult`: what a streaming body writes.
public enum BodyStreamResult: Sendable {
    case buffer(ByteBuffer)
    case error(any Error)
    case end
}

/// Vapor's `AsyncBodyStreamWriter`.
public protocol AsyncBodyStreamWriter: Sendable {
    func write(_ result: BodyStreamResult) async throws
}

/// Vapor's `Response`.
public final class Response: @unchecked Sendable {
    /// Vapor's `Response.Body`.
    public struct Body: Sendable {
        let stream: (@Sendable (any AsyncBodyStreamWriter) async throws -> Void)?

        /// A body written by `asyncStream` as the client reads it; it ends with `.end`.
        public init(asyncStream: @escaping @Sendable (any AsyncBodyStreamWriter) async throws -> Void) {
            stream = asyncStream
        }
    }

    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var body: Body

    public init(status: HTTPResponseStatus, headers: HTTPHeaders = HTTPHeaders(), body: Body) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// Vapor's `URLQueryContainer`, read by name.
public struct URLQueryContainer: Sendable {
    let items: [String: String]

    /// The query parameter `key` decoded as `T` (here a string), or `nil`.
    public subscript<T>(_ type: T.Type, at key: String) -> T? { items[key] as? T }
}

/// Vapor's `Request`.
public final class Request: @unchecked Sendable {
    public let headers: HTTPHeaders
    public let query: URLQueryContainer

    init(headers: HTTPHeaders, query: [String: String]) {
        self.headers = headers
        self.query = URLQueryContainer(items: query)
    }
}

/// Vapor's `Application`, with the route builder's `get`.
public final class Application: @unchecked Sendable {
    private var routes: [String: @Sendable (Request) async throws -> Response] = [:]

    private init() {}

    /// A new application for `environment`.
    public static func make(_ environment: Environment) async throws -> Application { Application() }

    /// Adds a `GET` route at the path `components` (joined by `/`).
    @discardableResult
    public func get(_ components: String..., use closure: @escaping @Sendable (Request) async throws -> Response)
        -> Self
    {
        routes["/" + components.joined(separator: "/")] = closure
        return self
    }

    /// Runs the command line's command (`serve` by default) until stopped; here it returns at once.
    public func execute() async throws {}

    /// Shuts the application down.
    public func asyncShutdown() async throws {}
}
