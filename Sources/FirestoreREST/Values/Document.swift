import FirestoreWire

/// A REST `Document`: its full resource name, fields and server times (REST reference: `Document`).
///
/// `fields` is empty when the wire left it out (keys-only `select` results, empty documents); the times are
/// `nil` when absent (for instance in a write's request body or a `showMissing` ghost).
public struct Document: Sendable, Hashable {
    /// Full resource name: `projects/p/databases/(default)/documents/fruits/apple`.
    public var name: String
    /// The fields by name.
    public var fields: [String: FirestoreValue]
    /// When the document was created.
    public var createTime: Timestamp?
    /// When the document was last changed; a change feed reports a document as modified only when this moves.
    public var updateTime: Timestamp?

    public init(
        name: String, fields: [String: FirestoreValue] = [:], createTime: Timestamp? = nil,
        updateTime: Timestamp? = nil
    ) {
        self.name = name
        self.fields = fields
        self.createTime = createTime
        self.updateTime = updateTime
    }

    /// Documents are equal when their names have the same UTF-8 bytes, their fields are equal
    /// (``FirestoreValue`` equality, map keys by bytes) and their times are equal: `c/\u{E9}` and `c/e\u{301}`
    /// are two documents, as Firestore holds them.
    public static func == (lhs: Document, rhs: Document) -> Bool {
        lhs.name.utf8Equals(rhs.name) && lhs.createTime == rhs.createTime && lhs.updateTime == rhs.updateTime
            && lhs.fields.utf8KeyedEquals(rhs.fields)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combineUTF8(name)
        fields.hashUTF8Keyed(into: &hasher)
        hasher.combine(createTime)
        hasher.combine(updateTime)
    }

    /// The last segment of ``name``: the document ID.
    public var id: String {
        name.lastUTF8Component("/")
    }

    /// Decodes a REST `Document` object. `fields` may be absent; `create_time`/`update_time` spellings are
    /// accepted.
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming the document and the field path of the first
    ///   bad value, or the member that is missing or malformed.
    public init(restJSON json: JSONValue) throws(FirestoreError) {
        guard case .object(let members) = json else {
            throw .invalidArgument("expected a Document object, found \(json.typeName)")
        }
        guard case .string(let name)? = members["name"] else {
            throw .invalidArgument("Document without a string \"name\": \(json.serializedString().prefix(200))")
        }
        self.name = name
        func time(_ key: String, _ snake: String) throws(FirestoreError) -> Timestamp? {
            switch members[key] ?? members[snake] {
            case nil, .null?: return nil
            case .string(let text)?:
                do {
                    return try Timestamp(rfc3339: text)
                } catch {
                    throw .invalidArgument("document \(name): \(key): \(error.message)")
                }
            case let other?:
                throw .invalidArgument("document \(name): \(key) must be a string, found \(other.typeName)")
            }
        }
        self.createTime = try time("createTime", "create_time")
        self.updateTime = try time("updateTime", "update_time")
        switch members["fields"] {
        case nil, .null?: self.fields = [:]
        case .object(let fields)?:
            do {
                self.fields = try FirestoreValue.decodeFields(fields)
            } catch {
                throw .invalidArgument("document \(name): \(error.message)")
            }
        case let other?:
            throw .invalidArgument("document \(name): fields must be an object, found \(other.typeName)")
        }
    }

    /// This document as a REST `Document` object; `createTime`/`updateTime` are written when set. For a write
    /// request body use ``restJSON(includingTimes:)`` with `false`.
    public func restJSON(includingTimes: Bool = true) -> JSONValue {
        var members: [String: JSONValue] = ["name": .string(name), "fields": FirestoreValue.encodeFields(fields)]
        if includingTimes {
            if let createTime { members["createTime"] = .string(createTime.rfc3339) }
            if let updateTime { members["updateTime"] = .string(updateTime.rfc3339) }
        }
        return .object(members)
    }
}
