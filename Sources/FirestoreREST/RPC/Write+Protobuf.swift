import FirestoreWire

extension Write {
    /// Writes this write's `google.firestore.v1.Write` fields (`google/firestore/v1/write.proto`) for `database`,
    /// the protobuf twin of ``restJSON(database:)`` with the same rules for what is left out:
    /// `Document update = 1` (`name = 1`, `fields = 2`), `string delete = 2`, `DocumentMask update_mask = 3`
    /// (`repeated string field_paths = 1`; written whenever a mask is given, an empty one included),
    /// `Precondition current_document = 4` (`bool exists = 1`, `Timestamp update_time = 2`),
    /// `repeated FieldTransform update_transforms = 7`.
    /// - Complexity: O(n log n) in the size of the write (map keys are sorted).
    package func writeProtobuf(database: DatabaseID, to writer: inout ProtobufWriter) {
        switch self {
        case .update(let path, let fields, let mask, let precondition, let transforms):
            writer.writeMessageField(1) { document in
                document.writeStringField(1, database.resourceName(of: path))
                FirestoreValue.writeFields(fields, number: 2, to: &document)
            }
            if let mask {
                writer.writeMessageField(3) { documentMask in
                    for path in mask { documentMask.writeStringField(1, path.description) }
                }
            }
            if let precondition { Self.write(precondition, to: &writer) }
            for transform in transforms {
                writer.writeMessageField(7) { transform.writeProtobuf(to: &$0) }
            }
        case .delete(let path, let precondition):
            writer.writeStringField(2, database.resourceName(of: path))
            if let precondition { Self.write(precondition, to: &writer) }
        }
    }

    private static func write(_ precondition: Precondition, to writer: inout ProtobufWriter) {
        writer.writeMessageField(4) { nested in
            switch precondition {
            case .exists(let flag): nested.writeBoolField(1, flag)
            case .updateTime(let time): nested.writeMessageField(2) { time.writeProtobuf(to: &$0) }
            }
        }
    }
}

extension FieldTransform {
    /// Writes this transform's `DocumentTransform.FieldTransform` fields (`google/firestore/v1/write.proto`):
    /// `field_path = 1`, then one of `set_to_server_value = 2` (`REQUEST_TIME` 1), `increment = 3`,
    /// `maximum = 4`, `minimum = 5` (`Value`), `append_missing_elements = 6`, `remove_all_from_array = 7`
    /// (`ArrayValue`: `repeated Value values = 1`).
    package func writeProtobuf(to writer: inout ProtobufWriter) {
        writer.writeStringField(1, fieldPath.description)
        switch operation {
        case .setToServerTime: writer.writeInt32Field(2, 1)
        case .increment(let operand): writer.writeMessageField(3) { operand.writeProtobuf(to: &$0) }
        case .maximum(let operand): writer.writeMessageField(4) { operand.writeProtobuf(to: &$0) }
        case .minimum(let operand): writer.writeMessageField(5) { operand.writeProtobuf(to: &$0) }
        case .appendMissingElements(let elements): Self.writeArray(elements, number: 6, to: &writer)
        case .removeAllFromArray(let elements): Self.writeArray(elements, number: 7, to: &writer)
        }
    }

    private static func writeArray(_ elements: [FirestoreValue], number: UInt32, to writer: inout ProtobufWriter) {
        writer.writeMessageField(number) { array in
            for element in elements { array.writeMessageField(1) { element.writeProtobuf(to: &$0) } }
        }
    }
}
