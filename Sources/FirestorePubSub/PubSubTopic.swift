import FirestoreREST

/// A Pub/Sub topic: `projects/PROJECT/topics/TOPIC`, as the Pub/Sub REST and gRPC APIs name it.
///
/// The topic ID follows Pub/Sub's resource name rule: 3 to 255 characters, starting with a letter, of letters,
/// digits, `-`, `_`, `.`, `~`, `+` and `%`, and not starting with `goog`
/// (https://cloud.google.com/pubsub/docs/pubsub-basics#resource_names). The project ID is not checked beyond being
/// non-empty and free of `/`: the server answers `INVALID_ARGUMENT` for one it does not know.
public struct PubSubTopic: Sendable, Hashable, CustomStringConvertible {
    /// The project that owns the topic.
    public let projectID: String
    /// The topic's ID, the last segment of its name.
    public let topicID: String

    /// The topic `topicID` of `projectID`.
    /// - Throws: `FirestoreError` `.invalidArgument` naming what is wrong with either ID.
    public init(projectID: String, topicID: String) throws(FirestoreError) {
        try Self.checkProjectID(projectID)
        if let problem = Self.problem(inResourceID: topicID) {
            throw .invalidArgument("Pub/Sub topic ID \"\(topicID)\": \(problem)")
        }
        self.projectID = projectID
        self.topicID = topicID
    }

    /// The topic named `name`, `projects/PROJECT/topics/TOPIC`.
    /// - Throws: `FirestoreError` `.invalidArgument` when `name` is not of that form or an ID is not valid.
    public init(_ name: String) throws(FirestoreError) {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "projects", parts[2] == "topics" else {
            throw .invalidArgument("Pub/Sub topic \"\(name)\" is not of the form projects/PROJECT/topics/TOPIC")
        }
        try self.init(projectID: String(parts[1]), topicID: String(parts[3]))
    }

    /// `projects/PROJECT/topics/TOPIC`.
    public var name: String { "projects/\(projectID)/topics/\(topicID)" }

    /// The topic's full name, as ``name``.
    public var description: String { name }

    /// Throws `.invalidArgument` when `projectID` is empty or holds a `/`.
    static func checkProjectID(_ projectID: String) throws(FirestoreError) {
        guard !projectID.isEmpty, !projectID.contains("/") else {
            throw .invalidArgument("Pub/Sub project ID \"\(projectID)\" must be non-empty and contain no \"/\"")
        }
    }

    /// Why `id` is not a valid topic or subscription ID, or `nil` when it is.
    static func problem(inResourceID id: String) -> String? {
        let bytes = Array(id.utf8)
        guard (3...255).contains(bytes.count) else { return "must be 3 to 255 characters long, not \(bytes.count)" }
        guard let first = bytes.first, Self.isLetter(first) else { return "must start with a letter" }
        guard !id.lowercased().hasPrefix("goog") else { return "must not start with \"goog\"" }
        let allowed = Set("-_.~+%".utf8)
        guard bytes.allSatisfy({ Self.isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || allowed.contains($0) }) else {
            return "may hold only letters, digits and - _ . ~ + %"
        }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
}
