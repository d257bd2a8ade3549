import FirestoreWire

/// Where a value sits in the tree being encoded or decoded: a linked list from the value up to the root, so
/// that the `[CodingKey]` array of `codingPath` is only built when someone asks for it (an error message,
/// a type that reads `codingPath`), not for every field.
indirect enum CodingPathNode {
    case root
    case key(any CodingKey, CodingPathNode)
    case index(Int, CodingPathNode)

    func appending(_ key: any CodingKey) -> CodingPathNode { .key(key, self) }

    func appending(index: Int) -> CodingPathNode { .index(index, self) }

    /// The coding path from the root, as `Decoder.codingPath` gives it; array positions are
    /// ``IndexCodingKey``s.
    var path: [any CodingKey] {
        var keys: [any CodingKey] = []
        var node = self
        while true {
            switch node {
            case .root: return keys.reversed()
            case .key(let key, let parent):
                keys.append(key)
                node = parent
            case .index(let index, let parent):
                keys.append(IndexCodingKey(index))
                node = parent
            }
        }
    }

    /// The node of the container holding this value: `Context.codingPath` of a `keyNotFound` error names the
    /// container, not the missing key (as Foundation's decoders do).
    var parent: CodingPathNode {
        switch self {
        case .root: return .root
        case .key(_, let parent), .index(_, let parent): return parent
        }
    }

    /// The last key, when this node is a key.
    var lastKey: (any CodingKey)? {
        if case .key(let key, _) = self { return key }
        return nil
    }

    /// The path in field-path spelling, `groupList[1].age` (segments quoted as ``FieldPath`` quotes them:
    /// `` `a.b` ``); empty at the root.
    var dotted: String {
        var parts: [String] = []
        var node = self
        while true {
            switch node {
            case .root:
                var text = ""
                for part in parts.reversed() {
                    if !text.isEmpty, !part.hasPrefix("[") { text += "." }
                    text += part
                }
                return text
            case .key(let key, let parent):
                parts.append(FieldPath.quoteSegment(key.stringValue))
                node = parent
            case .index(let index, let parent):
                parts.append("[\(index)]")
                node = parent
            }
        }
    }
}

/// The coding key of an array position, `Index 3` as Foundation's coders name it.
struct IndexCodingKey: CodingKey {
    let intValue: Int?
    let stringValue: String

    init(_ index: Int) {
        self.intValue = index
        self.stringValue = "Index \(index)"
    }

    init?(stringValue: String) { return nil }

    init?(intValue: Int) { self.init(intValue) }
}

/// A coding key made from a string: the `super` key, converted keys, dictionary keys.
struct StringCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ stringValue: String) { self.stringValue = stringValue }

    init?(stringValue: String) { self.stringValue = stringValue }

    init?(intValue: Int) { return nil }

    static let `super` = StringCodingKey("super")
}
