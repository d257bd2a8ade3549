import FirestoreWire

/// How `setData` combines the data with the stored document.
enum SetMergeOption: Sendable, Hashable {
    /// Replace the whole document (no mask).
    case overwrite
    /// Change only the leaf fields of the data (`merge: true`; mask = every leaf path and every delete).
    case mergeAll
    /// Change only these fields (`mergeFields:`; mask = these paths).
    case mergeFields([FieldPath])
}

/// Turns SDK-style writes (``FieldValue`` data) into REST ``Write``s exactly as Google's conformance tests pin
/// them (`create-*`, `set-*`, `update-*`, `update-paths-*`, `delete-*`), refusing every `isError` case with
/// ``FirestoreError`` `.invalidArgument` before anything is sent.
///
/// The rules, by operation:
/// - every operation: no sentinel inside an array or inside `arrayUnion`/`arrayRemove` arguments, no array
///   directly inside an array, no empty field name and no reserved name `__…__`, only numbers as
///   `increment`/`maximum`/`minimum` operands. Transforms are listed sorted by path, after the `update`.
///   A map emptied only by sentinels is left out of `fields`; a map that was empty stays (`*-st-with-empty-map`).
/// - create: set with `currentDocument.exists = false` (`create-*`).
/// - set: no mask; `FieldValue.delete()` is refused (`set-del-wo-merge`, `set-nodel`).
/// - set with merge: mask = every leaf path of the data plus every delete, never a transform path
///   (`set-mergeall*`, `set-del-mergeall`, `set-st-mergeall`).
/// - set with merge fields: the paths may not repeat or prefix one another (`set-merge-prefix`) and must all be
///   in the data (`set-merge-present`); only data at or below them is written, and only transforms at or below
///   them are sent (`set-st-nomerge`); the mask is the paths except those whose value is itself a transform
///   (`set-st-merge-nowrite`); a delete must sit exactly at a merge path (`set-del-nomerge`,
///   `set-del-nonleaf`).
/// - update: at least one path (`update-no-paths`), none repeated or a prefix of another (`update-prefix-*`,
///   `update-paths-fp-dup*`); a delete only as a path's own value (`update-del-nested`); the mask is every
///   path whose value is not itself a transform (`update-st-nested` keeps `b` for `b: {c: serverTimestamp}`);
///   precondition `exists: true` unless `updateTime` or `exists: true` is given; `exists: false` is refused
///   (`update-exists-false-precond`).
enum WriteEncoder {
    /// `setData` / `WriteBatch.setData`.
    static func set(_ data: [String: FieldValue], at path: ResourcePath, merge: SetMergeOption) throws(FirestoreError)
        -> Write
    {
        switch merge {
        case .overwrite:
            let parsed = try parse(data, deletes: .refused("only with merge or in updateData"))
            return .update(
                path: path, fields: parsed.fields, mask: nil, precondition: nil,
                transforms: parsed.sortedTransforms)
        case .mergeAll:
            let parsed = try parse(data, deletes: .collected)
            let mask = FieldMask.sorted(FieldMask.leafPaths(of: parsed.fields) + parsed.deletes)
            return .update(
                path: path, fields: parsed.fields, mask: mask, precondition: nil,
                transforms: parsed.sortedTransforms)
        case .mergeFields(let mergePaths):
            return try setMergingFields(data, at: path, mergePaths: mergePaths)
        }
    }

    /// `create`: a set that requires the document not to exist (`create-*`).
    static func create(_ data: [String: FieldValue], at path: ResourcePath) throws(FirestoreError) -> Write {
        let parsed = try parse(data, deletes: .refused("in create; use updateData or setData with merge"))
        return .update(
            path: path, fields: parsed.fields, mask: nil, precondition: .exists(false),
            transforms: parsed.sortedTransforms)
    }

    /// `updateData`: each pair's value replaces the field at its path (`update-*`, `update-paths-*`).
    /// - Parameter precondition: `nil` for the default `exists: true`.
    static func update(_ pairs: [(FieldPath, FieldValue)], at path: ResourcePath, precondition: Precondition?)
        throws(FirestoreError) -> Write
    {
        guard !pairs.isEmpty else { throw .invalidArgument("updateData needs at least one field") }
        if precondition == .exists(false) {
            throw .invalidArgument("updateData cannot take the precondition exists: false (the document must exist)")
        }
        try FieldMask.checkDistinct(pairs.map(\.0), role: "field path")
        var parsed = ParsedData()
        var mask: [FieldPath] = []
        for (fieldPath, value) in pairs {
            try checkNames(fieldPath)
            switch value {
            case .delete:
                mask.append(fieldPath)
            case _ where value.isTransform:
                try parseValue(value, at: fieldPath.segments, context: .init(deletes: .refused("")), into: &parsed)
            default:
                mask.append(fieldPath)
                let context = ParseContext(deletes: .refused("nested inside a value; delete \(fieldPath) itself"))
                if let plain = try parseValue(value, at: fieldPath.segments, context: context, into: &parsed) {
                    FieldMask.insert(plain, at: fieldPath, into: &parsed.fields)
                }
            }
        }
        return .update(
            path: path, fields: parsed.fields, mask: FieldMask.sorted(mask),
            precondition: precondition ?? .exists(true), transforms: parsed.sortedTransforms)
    }

    /// The top-level keys of `updateData(_:)`: dotted field paths (`update-split`, `update-split-top-level`).
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an empty path or segment (`update-fp-empty-component`)
    ///   or one of the characters `~*/[]` (`update-badchar`); a name holding them needs a ``FieldPath``.
    static func dottedPath(_ text: String) throws(FirestoreError) -> FieldPath {
        if let bad = text.first(where: { "~*/[]".contains($0) }) {
            throw .invalidArgument(
                "invalid field path \"\(text)\": '\(bad)' is not allowed in a dotted path; use FieldPath([...])")
        }
        return try FieldPath(dotted: text)
    }

    /// ``dottedPath(_:)`` for each of `texts`.
    static func dottedPaths(_ texts: [String]) throws(FirestoreError) -> [FieldPath] {
        var paths: [FieldPath] = []
        paths.reserveCapacity(texts.count)
        for text in texts { paths.append(try dottedPath(text)) }
        return paths
    }

    // MARK: - Set with merge fields

    private static func setMergingFields(_ data: [String: FieldValue], at path: ResourcePath, mergePaths: [FieldPath])
        throws(FirestoreError) -> Write
    {
        try FieldMask.checkDistinct(mergePaths, role: "merge field")
        let parsed = try parse(data, deletes: .collected)
        for delete in parsed.deletes where !mergePaths.contains(delete) {
            if let parent = mergePaths.first(where: { FieldMask.isPrefix($0, of: delete) }) {
                throw .invalidArgument(
                    "FieldValue.delete() at \(delete) is inside merge field \(parent): a delete must be a merge field itself"
                )
            }
            throw .invalidArgument("FieldValue.delete() at \(delete) is not in mergeFields")
        }
        var fields: [String: FirestoreValue] = [:]
        var mask: [FieldPath] = []
        for mergePath in mergePaths {
            guard let original = value(at: mergePath, in: data) else {
                throw .invalidArgument("merge field \(mergePath) is not in the data")
            }
            if !original.isTransform { mask.append(mergePath) }
            if let written = Document.value(at: mergePath, in: parsed.fields) {
                FieldMask.insert(written, at: mergePath, into: &fields)
            }
        }
        let transforms = parsed.sortedTransforms.filter { transform in
            mergePaths.contains { FieldMask.isCovered(transform.fieldPath, by: $0) }
        }
        return .update(
            path: path, fields: fields, mask: FieldMask.sorted(mask), precondition: nil,
            transforms: transforms)
    }

    /// The write value at `path` inside `data`, descending through maps only.
    private static func value(at path: FieldPath, in data: [String: FieldValue]) -> FieldValue? {
        var current: FieldValue = .map(data)
        for segment in path.segments {
            switch current {
            case .map(let fields):
                guard let next = fields[segment] else { return nil }
                current = next
            case .value(.map(let fields)):
                guard let next = fields[segment] else { return nil }
                current = .value(next)
            default:
                return nil
            }
        }
        return current
    }

    // MARK: - Walking the data

    /// What a `FieldValue.delete()` means where it is found.
    enum DeletePolicy {
        /// Recorded in ``ParsedData/deletes`` (set with merge).
        case collected
        /// Refused; the text says where deletes are allowed instead.
        case refused(String)
    }

    struct ParseContext {
        var deletes: DeletePolicy
        /// Set inside an array: every sentinel is refused.
        var arrayField: FieldPath?
    }

    /// The data with every sentinel taken out, and what the sentinels asked for.
    struct ParsedData {
        var fields: [String: FirestoreValue] = [:]
        var transforms: [FieldTransform] = []
        var deletes: [FieldPath] = []

        var sortedTransforms: [FieldTransform] {
            transforms.sorted { $0.fieldPath.description < $1.fieldPath.description }
        }
    }

    static func parse(_ data: [String: FieldValue], deletes: DeletePolicy) throws(FirestoreError) -> ParsedData {
        var parsed = ParsedData()
        let context = ParseContext(deletes: deletes)
        for (name, value) in data {
            if let plain = try parseValue(value, at: [name], context: context, into: &parsed) {
                parsed.fields[name] = plain
            }
        }
        return parsed
    }

    /// The plain value of `value` at `segments`, or `nil` when nothing is written there (a sentinel, or a map
    /// that only held sentinels). Sentinels are recorded in `parsed`.
    @discardableResult
    static func parseValue(
        _ value: FieldValue, at segments: [String], context: ParseContext,
        into parsed: inout ParsedData
    ) throws(FirestoreError) -> FirestoreValue? {
        let path = FieldPath(uncheckedSegments: segments)
        try checkName(segments.last, in: path)
        if value.isTransform || value == .delete, let arrayField = context.arrayField {
            throw .invalidArgument("\(value) cannot be used inside an array (field \(arrayField))")
        }
        switch value {
        case .value(let plain):
            try checkPlain(plain, at: path)
            return plain
        case .map(let fields):
            var plain: [String: FirestoreValue] = [:]
            for (name, element) in fields {
                if let inner = try parseValue(element, at: segments + [name], context: context, into: &parsed) {
                    plain[name] = inner
                }
            }
            return plain.isEmpty && !fields.isEmpty ? nil : .map(plain)
        case .array(let elements):
            var context = context
            context.arrayField = context.arrayField ?? path
            var plain: [FirestoreValue] = []
            plain.reserveCapacity(elements.count)
            for element in elements {
                try checkNotArray(element, in: path)
                guard let inner = try parseValue(element, at: segments, context: context, into: &parsed) else {
                    continue
                }
                plain.append(inner)
            }
            return .array(plain)
        case .delete:
            switch context.deletes {
            case .collected: parsed.deletes.append(path)
            case .refused(let hint):
                throw .invalidArgument("FieldValue.delete() cannot be used at \(path): \(hint)")
            }
            return nil
        case .serverTimestamp:
            parsed.transforms.append(FieldTransform(fieldPath: path, operation: .setToServerTime))
            return nil
        case .increment(let operand):
            try checkNumber(operand, of: "increment", at: path)
            parsed.transforms.append(FieldTransform(fieldPath: path, operation: .increment(operand)))
            return nil
        case .maximum(let operand):
            try checkNumber(operand, of: "maximum", at: path)
            parsed.transforms.append(FieldTransform(fieldPath: path, operation: .maximum(operand)))
            return nil
        case .minimum(let operand):
            try checkNumber(operand, of: "minimum", at: path)
            parsed.transforms.append(FieldTransform(fieldPath: path, operation: .minimum(operand)))
            return nil
        case .arrayUnion(let elements):
            let plain = try arrayArguments(elements, of: "arrayUnion", at: path)
            parsed.transforms.append(FieldTransform(fieldPath: path, operation: .appendMissingElements(plain)))
            return nil
        case .arrayRemove(let elements):
            let plain = try arrayArguments(elements, of: "arrayRemove", at: path)
            parsed.transforms.append(FieldTransform(fieldPath: path, operation: .removeAllFromArray(plain)))
            return nil
        }
    }

    /// The arguments of `arrayUnion`/`arrayRemove`: plain values, no arrays (`create-arrayunion-with-st`).
    private static func arrayArguments(_ elements: [FieldValue], of sentinel: String, at path: FieldPath)
        throws(FirestoreError) -> [FirestoreValue]
    {
        var plain: [FirestoreValue] = []
        plain.reserveCapacity(elements.count)
        for element in elements {
            guard let value = element.plainValue else {
                throw .invalidArgument(
                    "FieldValue.\(sentinel)() at \(path) holds \(element); its arguments must be plain values")
            }
            try checkNotArray(element, in: path)
            try checkPlain(value, at: path)
            plain.append(value)
        }
        return plain
    }

    // MARK: - Checks

    private static func checkNumber(_ operand: FirestoreValue, of sentinel: String, at path: FieldPath)
        throws(FirestoreError)
    {
        switch operand {
        case .integer, .double: return
        default:
            throw .invalidArgument(
                "FieldValue.\(sentinel)() at \(path) needs an integer or double operand, not \(operand.typeName)")
        }
    }

    private static func checkNotArray(_ element: FieldValue, in path: FieldPath) throws(FirestoreError) {
        switch element {
        case .array, .value(.array):
            throw .invalidArgument("an array cannot directly hold an array (field \(path))")
        default: return
        }
    }

    /// Every map key and array element of a plain value: no empty or reserved name, no array directly inside
    /// an array (an array inside a map inside an array is fine). A vector value, the map
    /// `{"__type__": "__vector__", "value": [...]}` the SDKs write for `FieldValue.vector` (Firestore docs,
    /// "Vector search"), may hold its reserved `__type__`.
    private static func checkPlain(_ value: FirestoreValue, at path: FieldPath) throws(FirestoreError) {
        switch value {
        case .map(let fields):
            let isVector = fields.count == 2 && fields["__type__"] == .string("__vector__")
            if isVector, case .array? = fields["value"] {
            } else if isVector {
                throw .invalidArgument("a vector value's \"value\" must be an array of numbers (field \(path))")
            }
            for (name, inner) in fields {
                let innerPath = FieldPath(uncheckedSegments: path.segments + [name])
                if !(isVector && name == "__type__") { try checkName(name, in: innerPath) }
                try checkPlain(inner, at: innerPath)
            }
        case .array(let elements):
            for element in elements {
                if case .array = element {
                    throw .invalidArgument("an array cannot directly hold an array (field \(path))")
                }
                try checkPlain(element, at: path)
            }
        default: return
        }
    }

    /// Every segment of a written field path: not empty, not reserved.
    private static func checkNames(_ path: FieldPath) throws(FirestoreError) {
        for segment in path.segments { try checkName(segment, in: path) }
    }

    /// A field name Firestore accepts in a write: not empty, and not matching `__.*__` (reserved).
    private static func checkName(_ name: String?, in path: FieldPath) throws(FirestoreError) {
        guard let name else { return }
        if name.isEmpty { throw .invalidArgument("a field name cannot be empty (field \(path))") }
        if name.utf8.count >= 4, name.hasPrefix("__"), name.hasSuffix("__") {
            throw .invalidArgument("field name \"\(name)\" is reserved: names matching __.*__ cannot be written")
        }
    }
}
