import FirestoreWire

/// One operation of a commit: a REST `Write` (REST reference: `Write`; `google/firestore/v1/write.proto`).
///
/// The SDK operations map onto it as the conformance tests pin: create = `update` + `exists: false`;
/// set = `update` with no mask; set with merge = `update` + mask of the merged paths; update = `update` +
/// mask + `exists: true`; delete = `delete`. Sentinels other than `FieldValue.delete()` become
/// `transforms` (`updateTransforms`). ``DocumentReference``, ``WriteBatch`` and ``Transaction`` build these
/// from ``FieldValue`` data; build one by hand only to send exactly this REST write, with
/// ``WriteCollecting/appendWrite(for:_:)``.
public enum Write: Sendable, Hashable {
    /// Writes `fields` to the document at `path`, then applies `transforms` in order. With a mask only the
    /// masked paths change (a masked path absent from `fields` is deleted); without one the whole document
    /// is replaced.
    case update(
        path: ResourcePath, fields: [String: FirestoreValue], mask: [FieldPath]?, precondition: Precondition?,
        transforms: [FieldTransform] = [])
    /// Deletes the document at `path` (succeeds when it is already missing unless a precondition says otherwise).
    case delete(path: ResourcePath, precondition: Precondition?)

    /// The document this write changes.
    public var path: ResourcePath {
        switch self {
        case .update(let path, _, _, _, _), .delete(let path, _): return path
        }
    }

    /// The REST `Write` object for `database`.
    ///
    /// `update.fields` is left out when it is empty while the mask names paths (only deletions and transforms
    /// remain: `set-del-merge-alone`, `update-del-alone`, `set-st-merge-nonleaf-alone`); with no mask or an
    /// empty one it is always written, `{}` included (`create-st-alone`, `update-st-alone`,
    /// `set-st-merge-nowrite`). `updateMask` is written whenever a mask is given, an empty one included (an
    /// empty mask changes no field; no mask replaces the document). `updateTransforms` is written when there
    /// are transforms.
    package func restJSON(database: DatabaseID) -> JSONValue {
        switch self {
        case .update(let path, let fields, let mask, let precondition, let transforms):
            var document: [String: JSONValue] = ["name": .string(database.resourceName(of: path))]
            if !fields.isEmpty || (mask?.isEmpty ?? true) {
                document["fields"] = FirestoreValue.encodeFields(fields)
            }
            var members: [String: JSONValue] = ["update": .object(document)]
            if let mask { members["updateMask"] = ["fieldPaths": .array(mask.map { .string($0.description) })] }
            if let precondition { members["currentDocument"] = precondition.restJSON }
            if !transforms.isEmpty { members["updateTransforms"] = .array(transforms.map(\.restJSON)) }
            return .object(members)
        case .delete(let path, let precondition):
            var members: [String: JSONValue] = ["delete": .string(database.resourceName(of: path))]
            if let precondition { members["currentDocument"] = precondition.restJSON }
            return .object(members)
        }
    }
}
