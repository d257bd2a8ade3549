/// One aggregation of an ``AggregateQuery``: a count (optionally capped), or the sum or average of a
/// numeric field (REST `StructuredAggregationQuery.Aggregation`, `firestore-rest.md` §1.2).
public struct AggregateField: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case count(upTo: Int64?)
        case sum(FieldPath)
        case average(FieldPath)
        case invalid(FirestoreError)
    }

    let kind: Kind

    /// The number of matching documents; with `upTo`, counting stops there (cheaper on large results).
    public static func count(upTo: Int64? = nil) -> AggregateField { AggregateField(kind: .count(upTo: upTo)) }

    /// The sum of `field` (a dotted path) over matching documents; non-numeric values are ignored. The server
    /// answers an integer when every summed value is an integer and the sum fits, else a double.
    public static func sum(_ field: String) -> AggregateField {
        do { return sum(try FieldPath(dotted: field)) } catch { return AggregateField(kind: .invalid(error)) }
    }
    /// The sum of `field`; see ``sum(_:)-(String)``.
    public static func sum(_ field: FieldPath) -> AggregateField { AggregateField(kind: .sum(field)) }

    /// The average of `field` (a dotted path) as a double, or null when no document has a numeric value.
    public static func average(_ field: String) -> AggregateField {
        do { return average(try FieldPath(dotted: field)) } catch { return AggregateField(kind: .invalid(error)) }
    }
    /// The average of `field`; see ``average(_:)-(String)``.
    public static func average(_ field: FieldPath) -> AggregateField { AggregateField(kind: .average(field)) }

    /// `count()`, `count(upTo: 10)`, `sum(kcal)`, `average(kcal)`.
    public var description: String {
        switch kind {
        case .count(let upTo): return upTo.map { "count(upTo: \($0))" } ?? "count()"
        case .sum(let field): return "sum(\(field))"
        case .average(let field): return "average(\(field))"
        case .invalid(let error): return "invalid(\(error.message))"
        }
    }

    /// The REST aggregation object with `alias`.
    func restJSON(alias: String) throws(FirestoreError) -> JSONValue {
        switch kind {
        case .count(let upTo):
            guard let upTo else { return ["alias": .string(alias), "count": [:]] }
            guard upTo > 0 else { throw .invalidArgument("count(upTo:) needs a positive bound, got \(upTo)") }
            return ["alias": .string(alias), "count": ["upTo": .string(String(upTo))]]
        case .sum(let field):
            return ["alias": .string(alias), "sum": ["field": ["fieldPath": .string(field.description)]]]
        case .average(let field):
            return ["alias": .string(alias), "avg": ["field": ["fieldPath": .string(field.description)]]]
        case .invalid(let error):
            throw error
        }
    }
}

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
