import FirestoreWire

extension Write {
    /// This write with `field` set to the server's request time (`updateTransforms` `REQUEST_TIME`, as
    /// `FieldValue.serverTimestamp()`), replacing whatever the write itself gives the field: its value is taken
    /// out of `fields` and its path (and any below it) out of the mask, a transform on exactly `field` is replaced.
    /// A delete is returned unchanged.
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming the document when the write cannot also carry the
    ///   timestamp: it transforms a field above or below `field`, or writes a value that is not a map at a field
    ///   above it.
    package func settingServerTime(on field: FieldPath) throws(FirestoreError) -> Write {
        guard case .update(let path, var fields, var mask, let precondition, var transforms) = self else { return self }
        for transform in transforms where transform.fieldPath != field {
            if FieldMask.isPrefix(transform.fieldPath, of: field) || FieldMask.isPrefix(field, of: transform.fieldPath)
            {
                throw .invalidArgument(
                    "\(path): the write transforms \(transform.fieldPath), which overlaps \(field), the field this "
                        + "client sets to the server time on every write")
            }
        }
        transforms.removeAll { $0.fieldPath == field }
        try Self.remove(field.segments[...], from: &fields, document: path, field: field)
        mask?.removeAll { FieldMask.isCovered($0, by: field) }
        transforms.append(FieldTransform(fieldPath: field, operation: .setToServerTime))
        return .update(path: path, fields: fields, mask: mask, precondition: precondition, transforms: transforms)
    }

    /// Removes the value at `segments` from `fields`; a map that becomes empty stays (it was written).
    private static func remove(
        _ segments: ArraySlice<String>, from fields: inout [String: FirestoreValue], document: ResourcePath,
        field: FieldPath
    ) throws(FirestoreError) {
        guard let first = segments.first else { return }
        if segments.count == 1 {
            fields.removeValue(forKey: first)
            return
        }
        guard let value = fields[first] else { return }
        guard case .map(var inner) = value else {
            throw .invalidArgument(
                "\(document): the write sets \(first) to \(value.typeName), not a map, so it cannot hold \(field), the field "
                    + "this client sets to the server time on every write")
        }
        try remove(segments.dropFirst(), from: &inner, document: document, field: field)
        fields[first] = .map(inner)
    }
}
