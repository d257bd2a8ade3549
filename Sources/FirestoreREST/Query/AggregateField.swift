import FirestoreWire

/// One aggregation of an ``AggregateQuery``: a count (optionally capped), or the sum or average of a
/// numeric field (REST reference: `StructuredAggregationQuery.Aggregation`), under an alias of the caller's
/// choosing or one the query picks.
///
/// ```swift
/// let stats = try await db.collection("fruits")
///     .aggregate([.count(alias: "fruits"), .sum("kcal", alias: "totalKcal")]).getAggregation()
/// stats.get("totalKcal")   // results by alias, as the Node SDK's snapshot.data().totalKcal
/// ```
public struct AggregateField: Sendable, Hashable, CustomStringConvertible {
    enum Kind: Sendable, Hashable {
        case count(upTo: Int64?)
        case sum(FieldPath)
        case average(FieldPath)
        case invalid(FirestoreError)
    }

    let kind: Kind
    /// The name the result is stored under, as given (REST `Aggregation.alias`), or `nil` for the query's own
    /// `aggregate_<i>` (*i* the aggregation's position).
    public let alias: String?

    init(kind: Kind, alias: String? = nil) {
        self.kind = kind
        self.alias = alias
    }

    /// The number of matching documents; with `upTo`, counting stops there (cheaper on large results).
    /// - Parameters:
    ///   - upTo: the most documents counted, or `nil` for all.
    ///   - alias: the name of the result (a valid field name: not empty, not `__…__`), or `nil`.
    public static func count(upTo: Int64? = nil, alias: String? = nil) -> AggregateField {
        AggregateField(kind: .count(upTo: upTo), alias: alias)
    }

    /// The sum of `field` (a dotted path) over matching documents; non-numeric values are ignored. The server
    /// answers an integer when every summed value is an integer and the sum fits, else a double.
    /// - Parameters:
    ///   - field: the summed field, a dotted path.
    ///   - alias: the name of the result, or `nil`.
    public static func sum(_ field: String, alias: String? = nil) -> AggregateField {
        do { return sum(try FieldPath(dotted: field), alias: alias) } catch {
            return AggregateField(kind: .invalid(error), alias: alias)
        }
    }
    /// The sum of `field`; see ``sum(_:alias:)-(String,_)``.
    public static func sum(_ field: FieldPath, alias: String? = nil) -> AggregateField {
        AggregateField(kind: .sum(field), alias: alias)
    }

    /// The average of `field` (a dotted path) as a double, or null when no document has a numeric value.
    /// - Parameters:
    ///   - field: the averaged field, a dotted path.
    ///   - alias: the name of the result, or `nil`.
    public static func average(_ field: String, alias: String? = nil) -> AggregateField {
        do { return average(try FieldPath(dotted: field), alias: alias) } catch {
            return AggregateField(kind: .invalid(error), alias: alias)
        }
    }
    /// The average of `field`; see ``average(_:alias:)-(String,_)``.
    public static func average(_ field: FieldPath, alias: String? = nil) -> AggregateField {
        AggregateField(kind: .average(field), alias: alias)
    }

    /// `count()`, `count(upTo: 10)`, `sum(kcal)`, `average(kcal)`, with ` as total` for an alias.
    public var description: String {
        let base: String
        switch kind {
        case .count(let upTo): base = upTo.map { "count(upTo: \($0))" } ?? "count()"
        case .sum(let field): base = "sum(\(field))"
        case .average(let field): base = "average(\(field))"
        case .invalid(let error): base = "invalid(\(error.message))"
        }
        return alias.map { "\(base) as \($0)" } ?? base
    }

    /// Checks a caller's alias as the REST reference requires (a valid document field name): not empty, at most
    /// 1500 bytes, not of the reserved form `__…__` (the emulator: "The property.name \"__bad__\" is reserved.").
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming the alias.
    static func checkAlias(_ alias: String) throws(FirestoreError) {
        guard !alias.isEmpty else { throw .invalidArgument("an aggregation alias cannot be empty") }
        guard alias.utf8.count <= 1500 else {
            throw .invalidArgument("aggregation alias \"\(alias.prefix(40))…\" is longer than 1500 bytes")
        }
        if alias.utf8.count >= 4, alias.hasPrefix("__"), alias.hasSuffix("__") {
            throw .invalidArgument("aggregation alias \"\(alias)\" is reserved (the form __…__)")
        }
    }

    /// The aggregation under `alias`, as the wire model holds it.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a `count(upTo:)` bound that is not positive, or the error
    ///   of an invalid field path given to ``sum(_:alias:)-swift.type.method`` or ``average(_:alias:)-swift.type.method``.
    func resolved(alias: String) throws(FirestoreError) -> StructuredAggregationQuery.Aggregation {
        switch kind {
        case .count(let upTo):
            if let upTo, upTo <= 0 {
                throw .invalidArgument("count(upTo:) needs a positive bound, got \(upTo)")
            }
            return .init(alias: alias, operation: .count(upTo: upTo))
        case .sum(let field):
            return .init(alias: alias, operation: .sum(field))
        case .average(let field):
            return .init(alias: alias, operation: .average(field))
        case .invalid(let error):
            throw error
        }
    }
}
