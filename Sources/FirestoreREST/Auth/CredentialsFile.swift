import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A parsed Google credentials JSON file (service-account key, gcloud `authorized_user` file), with field
/// accessors whose errors name the file and the field, never a field's value (values may be secrets).
struct CredentialsFile: Sendable {
    /// Where the JSON came from, for error messages: a file path or a label such as `service account JSON`.
    let source: String
    private let members: [String: JSONValue]

    /// Parses `data`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when it is not a JSON object (with the byte offset of
    ///   the syntax error).
    init(data: Data, source: String) throws(FirestoreError) {
        self.source = source
        let json: JSONValue
        do {
            json = try JSONValue.parse(data)
        } catch {
            throw .invalidArgument("credentials \(source) is not JSON: \(error)")
        }
        guard case .object(let members) = json else {
            throw .invalidArgument("credentials \(source) is a JSON \(json.typeName), not an object")
        }
        self.members = members
    }

    /// Reads and parses the file at `path`.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the file cannot be read (naming the path and
    ///   the reason), `.invalidArgument` when it is not a JSON object.
    init(contentsOfFile path: String) throws(FirestoreError) {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            let reason = FileManager.default.fileExists(atPath: path) ? "it is not readable" : "no such file"
            throw FirestoreError(code: .failedPrecondition, message: "cannot read credentials file \(path): \(reason)")
        }
        try self.init(data: data, source: path)
    }

    /// The `type` member (`service_account`, `authorized_user`, ...).
    /// - Throws: ``FirestoreError`` `.invalidArgument` when it is missing or not a string.
    var type: String {
        get throws(FirestoreError) { try string("type") }
    }

    /// The non-empty string member `key`.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when it is missing, empty or not a string.
    func string(_ key: String) throws(FirestoreError) -> String {
        guard let value = try optionalString(key) else {
            throw .invalidArgument("credentials \(source): \"\(key)\" is missing")
        }
        return value
    }

    /// The string member `key`, or `nil` when it is absent, `null` or empty.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when it has another type.
    func optionalString(_ key: String) throws(FirestoreError) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let text)?: return text.isEmpty ? nil : text
        case let other?:
            throw .invalidArgument("credentials \(source): \"\(key)\" is a \(other.typeName), not a string")
        }
    }

    /// The string member `key` when it is an `http` or `https` URL (`token_uri`), or `fallback` when absent.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when it is present but not an absolute http(s) URL.
    func url(_ key: String, default fallback: String) throws(FirestoreError) -> String {
        guard let text = try optionalString(key) else { return fallback }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            url.host?.isEmpty == false
        else {
            throw .invalidArgument("credentials \(source): \"\(key)\" is not an http(s) URL")
        }
        return text
    }
}
