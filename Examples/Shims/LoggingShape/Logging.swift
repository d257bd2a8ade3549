// The smallest shape of swift-log's API (https://github.com/apple/swift-log, module `Logging`) that README's logging
// block uses, so the block compiles here as written: the package cannot take swift-log in, and a local module named
// `Logging` could clash with a user's swift-log. `ReadmeSnippetTests` maps `import Logging` in the block to
// `import LoggingShape` in its compiled file. Same names, labels and types as swift-log 1.x; not a product.

import Synchronization

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

/// swift-log's `LogHandler`: where a `Logger`'s messages go.
public protocol LogHandler: Sendable {
    /// One message that passed the logger's level.
    func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt)
    /// One metadata value of the handler.
    subscript(metadataKey _: String) -> Logger.Metadata.Value? { get set }
    /// The handler's metadata.
    var metadata: Logger.Metadata { get set }
    /// The least severe level logged.
    var logLevel: Logger.Level { get set }
}

/// swift-log's `Logger`: a label, a level and a handler.
public struct Logger: Sendable {
    /// The level, the message, its metadata.
    public enum Level: String, Codable, CaseIterable, Sendable, Comparable {
        case trace, debug, info, notice, warning, error, critical

        public static func < (lhs: Level, rhs: Level) -> Bool {
            (allCases.firstIndex(of: lhs) ?? 0) < (allCases.firstIndex(of: rhs) ?? 0)
        }
    }

    /// A message, made from a string literal or interpolation.
    public struct Message: ExpressibleByStringLiteral, ExpressibleByStringInterpolation, CustomStringConvertible,
        Sendable
    {
        public let description: String

        public init(stringLiteral value: String) {
            description = value
        }

        public init(stringInterpolation: DefaultStringInterpolation) {
            description = String(stringInterpolation: stringInterpolation)
        }
    }

    /// A metadata value.
    public enum MetadataValue: Sendable, CustomStringConvertible {
        case string(String)
        case array([MetadataValue])
        case dictionary(Metadata)

        public var description: String {
            switch self {
            case .string(let text): text
            case .array(let values): values.description
            case .dictionary(let values): values.description
            }
        }
    }

    public typealias Metadata = [String: MetadataValue]

    public let label: String
    var handler: any LogHandler

    /// A logger with the handler `LoggingSystem.bootstrap` chose.
    public init(label: String) {
        self.label = label
        handler = LoggingSystem.factory.withLock { $0 }(label)
    }

    /// The least severe level this logger logs.
    public var logLevel: Level {
        get { handler.logLevel }
        set { handler.logLevel = newValue }
    }

    /// Logs `message` when `level` is at least `logLevel`.
    public func log(
        level: Level, _ message: @autoclosure () -> Message, metadata: @autoclosure () -> Metadata? = nil,
        source: @autoclosure () -> String? = nil, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        guard level >= logLevel else { return }
        handler.log(
            level: level, message: message(), metadata: metadata(), source: source() ?? "", file: file,
            function: function, line: line)
    }
}

/// swift-log's `LoggingSystem`: chooses, once per process, the handler of every `Logger`.
public enum LoggingSystem {
    static let factory = Mutex<@Sendable (String) -> any LogHandler>({ StreamLogHandler.standardError(label: $0) })

    /// Sets the handler every `Logger` made afterwards gets.
    public static func bootstrap(_ factory: @escaping @Sendable (String) -> any LogHandler) {
        self.factory.withLock { $0 = factory }
    }
}

/// swift-log's `StreamLogHandler`: one line per message on standard error or output.
public struct StreamLogHandler: LogHandler {
    let label: String
    let descriptor: Int32
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// A handler writing to standard error.
    public static func standardError(label: String) -> StreamLogHandler {
        StreamLogHandler(label: label, descriptor: 2)
    }

    /// A handler writing to standard output.
    public static func standardOutput(label: String) -> StreamLogHandler {
        StreamLogHandler(label: label, descriptor: 1)
    }

    public func log(
        level: Logger.Level, message: Logger.Message, metadata: Logger.Metadata?, source: String, file: String,
        function: String, line: UInt
    ) {
        let all = self.metadata.merging(metadata ?? [:]) { $1 }
        let pairs = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        let text = "\(level) \(label): \(pairs.isEmpty ? "" : pairs + " ")[\(source)] \(message)\n"
        _ = text.utf8CString.withUnsafeBufferPointer { write(descriptor, $0.baseAddress, $0.count - 1) }
    }
}
