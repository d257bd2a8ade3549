import FirestoreWire

/// What the encoder builds: reference-typed boxes, so that a nested container or a super encoder writes into
/// its parent after the parent's container has been handed out (as the `Encoder` protocol requires).
final class EncodedBox {
    enum Content {
        /// Nothing was encoded (becomes an empty map, as Foundation's encoders write `{}`).
        case empty
        case value(FieldValue)
        case map(EncodedMap)
        case array(EncodedArray)
    }

    var content: Content

    init(_ content: Content = .empty) { self.content = content }

    /// The finished value.
    var writeValue: FieldValue {
        switch content {
        case .empty: return .map([:])
        case .value(let value): return value
        case .map(let map): return map.writeValue
        case .array(let array): return array.writeValue
        }
    }
}

/// A map under construction.
final class EncodedMap {
    var entries: [String: EncodedNode] = [:]

    var writeValue: FieldValue { .map(entries.mapValues(\.writeValue)) }
}

/// An array under construction.
final class EncodedArray {
    var elements: [EncodedNode] = []

    var writeValue: FieldValue { .array(elements.map(\.writeValue)) }
}

/// One entry of a map or array under construction: a finished value, or a box still being filled.
enum EncodedNode {
    case value(FieldValue)
    case box(EncodedBox)

    var writeValue: FieldValue {
        switch self {
        case .value(let value): return value
        case .box(let box): return box.writeValue
        }
    }
}
