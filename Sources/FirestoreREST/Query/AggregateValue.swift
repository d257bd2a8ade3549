import FirestoreWire

/// One aggregation result as the server typed it.
public enum AggregateValue: Sendable, Hashable {
    /// An `integerValue`: every count, and a sum of integers that fits in 64 bits.
    case integer(Int64)
    /// A `doubleValue`: every average, and a sum with a double in it or beyond 64 bits.
    case double(Double)
    /// `nullValue`: the average (or sum) of no numeric values.
    case null

    /// The value as a Double (`nil` for null).
    public var doubleValue: Double? {
        switch self {
        case .integer(let number): return Double(number)
        case .double(let number): return number
        case .null: return nil
        }
    }
}
