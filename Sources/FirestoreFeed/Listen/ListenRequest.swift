import FirestoreWire

/// A `google.firestore.v1.ListenRequest` (`google/firestore/v1/firestore.proto`), one message the client
/// sends on the Listen stream: `string database = 1`, oneof `target_change` { `Target add_target = 2`,
/// `int32 remove_target = 3` }, `map<string, string> labels = 4`.
///
/// ```swift
/// let target = try ListenTarget(query: db.collection("fruits").order(by: "name"), targetID: 1)
/// let body = ListenRequest(adding: target, database: db.database.name).protobuf   // one gRPC message body
/// ```
package struct ListenRequest: Sendable, Hashable {
    /// The change to the stream's targets.
    package enum TargetChange: Sendable, Hashable {
        /// `add_target`.
        case add(ListenTarget)
        /// `remove_target`: the ID of a target on the stream.
        case remove(targetID: Int32)
    }

    /// The database name, `projects/{project}/databases/{database}` (``DatabaseID/name``).
    package var database: String
    /// The target added or removed.
    package var targetChange: TargetChange
    /// Labels for this target change.
    package var labels: [String: String]

    /// A request from its parts.
    package init(database: String, targetChange: TargetChange, labels: [String: String] = [:]) {
        self.database = database
        self.targetChange = targetChange
        self.labels = labels
    }

    /// A request adding `target` to the stream of `database` (`projects/p/databases/d`).
    package init(adding target: ListenTarget, database: String, labels: [String: String] = [:]) {
        self.init(database: database, targetChange: .add(target), labels: labels)
    }

    /// A request removing the target `targetID` from the stream of `database`.
    package init(removing targetID: Int32, database: String, labels: [String: String] = [:]) {
        self.init(database: database, targetChange: .remove(targetID: targetID), labels: labels)
    }

    /// Writes the `ListenRequest` fields in field-number order; `remove_target` is written even when 0
    /// (oneof members carry presence); label entries (`key = 1`, `value = 2`) in UTF-8 key order.
    /// - Complexity: O(n) in the size of the request, O(k log k) in the number of labels.
    package func writeProtobuf(to writer: inout ProtobufWriter) {
        if !database.isEmpty { writer.writeStringField(1, database) }
        switch targetChange {
        case .add(let target): writer.writeMessageField(2) { target.writeProtobuf(to: &$0) }
        case .remove(let targetID): writer.writeInt32Field(3, targetID)
        }
        for key in labels.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            let value = labels[key] ?? ""
            writer.writeMessageField(4) { entry in
                entry.writeStringField(1, key)
                entry.writeStringField(2, value)
            }
        }
    }

    /// The serialized message: one gRPC message body, without the 5-byte gRPC frame header.
    /// - Complexity: O(n) in the size of the request.
    package var protobuf: [UInt8] {
        var writer = ProtobufWriter()
        writeProtobuf(to: &writer)
        return writer.bytes
    }
}
