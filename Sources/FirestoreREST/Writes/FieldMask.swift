/// Builds update masks and nested field maps from field paths (conformance `set-merge*`, `update-*`).
enum FieldMask {
    /// Every leaf path of `data`, sorted by their quoted form. A non-empty map is descended into; any other
    /// value, an empty map included, is a leaf.
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
        return paths.sorted { $0.description < $1.description }
    }

    /// Nests values given by path into a field map (`a.b = 1` becomes `{a: {b: 1}}`) and returns the paths,
    /// sorted, as the mask.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for no paths, or when one path is a prefix of another.
    static func nest(_ values: [FieldPath: FirestoreValue]) throws(FirestoreError)
        -> ([String: FirestoreValue], [FieldPath])
    {
        guard !values.isEmpty else { throw .invalidArgument("an update needs at least one field") }
        let paths = values.keys.sorted { $0.segments.lexicographicallyPrecedes($1.segments) }
        for (first, second) in zip(paths, paths.dropFirst())
        where second.segments.count > first.segments.count && Array(second.segments.prefix(first.segments.count)) == first.segments {
            throw .invalidArgument("field path \(first) is a prefix of \(second): update one or the other")
        }
        var root: [String: FirestoreValue] = [:]
        for path in paths {
            guard let value = values[path] else { continue }
            insert(value, at: path.segments[...], into: &root)
        }
        return (root, paths.sorted { $0.description < $1.description })
    }

    private static func insert(_ value: FirestoreValue, at segments: ArraySlice<String>,
                               into fields: inout [String: FirestoreValue]) {
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
