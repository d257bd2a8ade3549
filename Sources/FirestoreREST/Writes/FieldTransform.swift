import FirestoreWire

/// One server-side change to one field, applied after a write's `update` (REST `FieldTransform`,
/// `google/firestore/v1/write.proto`). The `FieldValue` sentinels other than `delete()` become these.
public struct FieldTransform: Sendable, Hashable {
    /// What the server does to the field.
    public enum Operation: Sendable, Hashable {
        /// `setToServerValue: REQUEST_TIME`: the commit time (`FieldValue.serverTimestamp()`).
        case setToServerTime
        /// `increment`: add an integer or double (`FieldValue.increment(_:)`).
        case increment(FirestoreValue)
        /// `maximum`: the larger of the field and the operand (`FieldValue.maximum(_:)`).
        case maximum(FirestoreValue)
        /// `minimum`: the smaller of the field and the operand (`FieldValue.minimum(_:)`).
        case minimum(FirestoreValue)
        /// `appendMissingElements`: append each element not yet present (`FieldValue.arrayUnion(_:)`).
        case appendMissingElements([FirestoreValue])
        /// `removeAllFromArray`: remove every instance of each element (`FieldValue.arrayRemove(_:)`).
        case removeAllFromArray([FirestoreValue])
    }

    /// The field the transform applies to.
    public var fieldPath: FieldPath
    /// The change.
    public var operation: Operation

    /// Creates a transform.
    public init(fieldPath: FieldPath, operation: Operation) {
        self.fieldPath = fieldPath
        self.operation = operation
    }

    /// The REST `FieldTransform` object: `{"fieldPath": "a.b", "setToServerValue": "REQUEST_TIME"}` and the like.
    package var restJSON: JSONValue {
        var members: [String: JSONValue] = ["fieldPath": .string(fieldPath.description)]
        switch operation {
        case .setToServerTime: members["setToServerValue"] = "REQUEST_TIME"
        case .increment(let operand): members["increment"] = operand.restJSON
        case .maximum(let operand): members["maximum"] = operand.restJSON
        case .minimum(let operand): members["minimum"] = operand.restJSON
        case .appendMissingElements(let elements):
            members["appendMissingElements"] = ["values": .array(elements.map(\.restJSON))]
        case .removeAllFromArray(let elements):
            members["removeAllFromArray"] = ["values": .array(elements.map(\.restJSON))]
        }
        return .object(members)
    }
}
