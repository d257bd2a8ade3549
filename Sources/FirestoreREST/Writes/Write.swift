/// A condition the server checks before applying a write (`firestore-rest.md` §1.6).
public enum Precondition: Sendable, Hashable {
    /// The document must exist (`true`) or must not (`false`).
    case exists(Bool)
    /// The document's `updateTime` must equal this.
    case updateTime(Timestamp)

    var restJSON: JSONValue {
        switch self {
        case .exists(let flag): return ["exists": .bool(flag)]
        case .updateTime(let time): return ["updateTime": .string(time.rfc3339)]
        }
    }
}

/// One operation of a commit: a REST `Write` (`firestore-rest.md` §1.6).
///
/// The SDK operations map onto it as the conformance tests pin: create = `update` + `exists: false`;
/// set = `update` with no mask; set with merge = `update` + mask of the merged paths; update = `update` +
/// mask + `exists: true`; delete = `delete`.
public enum Write: Sendable, Hashable {
    /// Writes `fields` to the document at `path`. With a mask only the masked paths change (a masked path
    /// absent from `fields` is deleted); without one the whole document is replaced.
    case update(path: ResourcePath, fields: [String: FirestoreValue], mask: [FieldPath]?, precondition: Precondition?)
    /// Deletes the document at `path` (succeeds when it is already missing unless a precondition says otherwise).
    case delete(path: ResourcePath, precondition: Precondition?)

    /// The REST `Write` object for `database`.
    public func restJSON(database: DatabaseID) -> JSONValue {
        switch self {
        case .update(let path, let fields, let mask, let precondition):
            var members: [String: JSONValue] = [
                "update": ["name": .string(database.resourceName(of: path)),
                           "fields": FirestoreValue.encodeFields(fields)]
            ]
            if let mask { members["updateMask"] = ["fieldPaths": .array(mask.map { .string($0.description) })] }
            if let precondition { members["currentDocument"] = precondition.restJSON }
            return .object(members)
        case .delete(let path, let precondition):
            var members: [String: JSONValue] = ["delete": .string(database.resourceName(of: path))]
            if let precondition { members["currentDocument"] = precondition.restJSON }
            return .object(members)
        }
    }
}
