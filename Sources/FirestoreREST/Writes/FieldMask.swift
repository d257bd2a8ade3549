import FirestoreWire

/// Update masks and nested field maps built from field paths (conformance `set-merge*`, `update-*`).
enum FieldMask {
    /// Every leaf path of `data`, sorted by their quoted form: the mask of `setData(_:merge: true)`. A
    /// non-empty map is descended into; any other value, an empty map included, is a leaf.
    static func leafPaths(of data: [String: FirestoreValue]) -> [FieldPath] {
        var paths: [FieldPath] = []
        func walk(_ fields: [String: FirestoreValue], prefix: [String]) {
            for (name, value) in fields {
                if case .map(let inner) = value, !inner.isEmpty {
                    walk(inner, prefix: prefix + [name])
                } else {
                    paths.append(FieldPath(uncheckedSegments: prefix + [name]))
                }
            }
        }
        walk(data, prefix: [])
        return sorted(paths)
    }

    /// Nests values given by path into a field map (`a.b = 1` becomes `{a: {b: 1}}`) and returns the paths,
    /// sorted, as the mask.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for no paths, or when one path is a prefix of another.
    static func nest(_ values: [FieldPath: FirestoreValue]) throws(FirestoreError)
        -> ([String: FirestoreValue], [FieldPath])
    {
        guard !values.isEmpty else { throw .invalidArgument("an update needs at least one field") }
        try checkDistinct(Array(values.keys), role: "field path")
        var root: [String: FirestoreValue] = [:]
        for (path, value) in values { insert(value, at: path, into: &root) }
        return (root, sorted(Array(values.keys)))
    }

    /// The paths in mask order: sorted by their quoted form (the `FieldPath` quoting rule), as the
    /// conformance `update-*.json` requests list them.
    /// - Complexity: O(n log n) comparisons.
    static func sorted(_ paths: [FieldPath]) -> [FieldPath] {
        paths.sorted { $0.description < $1.description }
    }

    /// Checks that no path repeats and none is a prefix of another (`update-prefix-*`, `update-paths-fp-dup`,
    /// `set-merge-prefix`).
    /// - Parameter role: what the paths are, for the message (`"field path"`, `"merge field"`).
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming both paths.
    /// - Complexity: O(n log n) comparisons: after a segment-wise sort a prefix is always followed by a path
    ///   it prefixes.
    static func checkDistinct(_ paths: [FieldPath], role: String) throws(FirestoreError) {
        let ordered = paths.sorted { $0.segments.lexicographicallyPrecedes($1.segments) }
        for (first, second) in zip(ordered, ordered.dropFirst()) {
            if first == second {
                throw .invalidArgument("\(role) \(first) is given more than once")
            }
            if isPrefix(first, of: second) {
                throw .invalidArgument("\(role) \(first) is a prefix of \(second): give one or the other")
            }
        }
    }

    /// Whether `prefix` is a proper prefix of `path` (`a` of `a.b`, not of `ab` nor of `a`).
    static func isPrefix(_ prefix: FieldPath, of path: FieldPath) -> Bool {
        path.segments.count > prefix.segments.count && path.segments.starts(with: prefix.segments)
    }

    /// Whether `path` equals `ancestor` or lies below it.
    static func isCovered(_ path: FieldPath, by ancestor: FieldPath) -> Bool {
        path.segments.starts(with: ancestor.segments)
    }

    /// Puts `value` at `path` inside `fields`, creating (or extending) the maps on the way.
    static func insert(_ value: FirestoreValue, at path: FieldPath, into fields: inout [String: FirestoreValue]) {
        insert(value, at: path.segments[...], into: &fields)
    }

    private static func insert(
        _ value: FirestoreValue, at segments: ArraySlice<String>,
        into fields: inout [String: FirestoreValue]
    ) {
        guard let first = segments.first else { return }
        if segments.count == 1 {
            fields[first] = value
            return
        }
        var inner: [String: FirestoreValue] = [:]
        if case .map(let existing)? = fields[first] { inner = existing }
        insert(value, at: segments.dropFirst(), into: &inner)
        fields[first] = .map(inner)
    }
}
