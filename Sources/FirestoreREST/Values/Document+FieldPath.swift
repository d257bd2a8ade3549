import FirestoreWire

extension Document {
    /// The value at `path` inside ``fields``, or `nil` when a segment is missing or a non-final segment is not
    /// a map.
    /// - Complexity: O(k) dictionary lookups for a path of k segments.
    public func value(at path: FieldPath) -> FirestoreValue? {
        Self.value(at: path, in: fields)
    }

    /// The value at `path` inside `fields`; see ``value(at:)``.
    public static func value(at path: FieldPath, in fields: [String: FirestoreValue]) -> FirestoreValue? {
        var current = fields
        for (position, segment) in path.segments.enumerated() {
            guard let value = current[segment] else { return nil }
            if position == path.segments.count - 1 { return value }
            guard case .map(let inner) = value else { return nil }
            current = inner
        }
        return nil
    }
}
