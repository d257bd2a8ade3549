import FirestoreFeed
import LoggingShape

/// The adapter from the client's log handler to a swift-log `Logger`: the client logs at trace and debug only.
struct SwiftLogHandler: FirestoreLogHandler {
    let logger: Logger

    func log(
        level: FirestoreLogLevel, message: String, metadata: [String: String], source: String, file: String,
        function: String, line: UInt
    ) {
        logger.log(
            level: Logger.Level(rawValue: level.rawValue) ?? .debug, "\(message)",
            metadata: metadata.mapValues { .string($0) }, source: source, file: file, function: function, line: line)
    }
}

LoggingSystem.bootstrap { label in StreamLogHandler.standardError(label: label) }  // once per process
var logger = Logger(label: "firestore")
logger.logLevel = .debug

let db = try Firestore.fromEnvironment(projectID: "demo-fruits")
db.logHandler = SwiftLogHandler(logger: logger)
let apple = try await db.document("fruits/apple").getDocument()  // stderr: the request, its status and duration
print("apple exists:", apple.exists)
