/// One aggregation of an ``AggregateQuery``: a count (optionally capped), or the sum or average of a
/// numeric field (REST reference: `StructuredAggregationQuery.Aggregation`).
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
