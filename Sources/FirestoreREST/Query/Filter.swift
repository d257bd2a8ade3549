import FirestoreWire

/// A query filter in Firebase SDK terms: a field comparison, or an AND / OR of filters, nested as deep as
/// needed. Pass it to ``QueryRepresentable/whereFilter(_:)``:
///
/// ```swift
/// db.collection("cities").whereFilter(.orFilter([
///     .whereField("capital", isEqualTo: true),
///     .andFilter([.whereField("state", isEqualTo: "CA"), .whereField("population", isGreaterThan: 1_000_000)]),
/// ]))
/// ```
///
/// Encoded as StructuredQuery `fieldFilter` / `unaryFilter` / `compositeFilter` (`google/firestore/v1/query.proto`,
/// `StructuredQuery.Filter`). An invalid field path is kept and thrown when the query is encoded, before anything is
/// sent.
public struct Filter: Sendable, Hashable {
    indirect enum Node: Sendable, Hashable {
        case field(FieldPath, FilterOperator, FirestoreValue)
        case composite(CompositeOperator, [Filter])
        case invalid(FirestoreError)
    }

    /// How a composite filter combines its parts.
    public enum CompositeOperator: String, Sendable, Hashable {
        case and = "AND"
        case or = "OR"
    }

    let node: Node

    init(_ node: Node) { self.node = node }

    static func field(_ field: String, _ op: FilterOperator, _ value: FirestoreValue) -> Filter {
        do {
            return Filter(.field(try FieldPath(dotted: field), op, value))
        } catch {
            return Filter(.invalid(error))
        }
    }

    /// A filter with any operator on a dotted field path (`"address.city"`).
    public static func whereField(_ field: String, _ op: FilterOperator, _ value: any FirestoreValueConvertible)
        -> Filter
    {
        Self.field(field, op, value.firestoreValue)
    }
    /// A filter with any operator on a ``FieldPath`` (``FieldPath/documentID`` filters on the document key).
    public static func whereField(_ field: FieldPath, _ op: FilterOperator, _ value: any FirestoreValueConvertible)
        -> Filter
    {
        Filter(.field(field, op, value.firestoreValue))
    }
    /// `EQUAL` (null becomes `IS_NULL`, NaN `IS_NAN`).
    public static func whereField(_ field: String, isEqualTo value: any FirestoreValueConvertible) -> Filter {
        Self.field(field, .equal, value.firestoreValue)
    }
    /// `NOT_EQUAL` (null becomes `IS_NOT_NULL`, NaN `IS_NOT_NAN`).
    public static func whereField(_ field: String, isNotEqualTo value: any FirestoreValueConvertible) -> Filter {
        Self.field(field, .notEqual, value.firestoreValue)
    }
    /// `LESS_THAN`.
    public static func whereField(_ field: String, isLessThan value: any FirestoreValueConvertible) -> Filter {
        Self.field(field, .lessThan, value.firestoreValue)
    }
    /// `LESS_THAN_OR_EQUAL`.
    public static func whereField(_ field: String, isLessThanOrEqualTo value: any FirestoreValueConvertible)
        -> Filter
    {
        Self.field(field, .lessThanOrEqual, value.firestoreValue)
    }
    /// `GREATER_THAN`.
    public static func whereField(_ field: String, isGreaterThan value: any FirestoreValueConvertible) -> Filter {
        Self.field(field, .greaterThan, value.firestoreValue)
    }
    /// `GREATER_THAN_OR_EQUAL`.
    public static func whereField(_ field: String, isGreaterThanOrEqualTo value: any FirestoreValueConvertible)
        -> Filter
    {
        Self.field(field, .greaterThanOrEqual, value.firestoreValue)
    }
    /// `ARRAY_CONTAINS`.
    public static func whereField(_ field: String, arrayContains value: any FirestoreValueConvertible) -> Filter {
        Self.field(field, .arrayContains, value.firestoreValue)
    }
    /// `ARRAY_CONTAINS_ANY` (at most 30 values).
    public static func whereField(_ field: String, arrayContainsAny values: [any FirestoreValueConvertible])
        -> Filter
    {
        Self.field(field, .arrayContainsAny, .array(values.map(\.firestoreValue)))
    }
    /// `IN` (at most 30 values).
    public static func whereField(_ field: String, in values: [any FirestoreValueConvertible]) -> Filter {
        Self.field(field, .in, .array(values.map(\.firestoreValue)))
    }
    /// `NOT_IN` (at most 10 values).
    public static func whereField(_ field: String, notIn values: [any FirestoreValueConvertible]) -> Filter {
        Self.field(field, .notIn, .array(values.map(\.firestoreValue)))
    }

    /// Documents matching every filter. An empty list matches everything and is left out of the request; a
    /// single filter is sent bare.
    public static func andFilter(_ filters: [Filter]) -> Filter { Filter(.composite(.and, filters)) }

    /// Documents matching at least one filter. An empty list is an error when the query is encoded; a
    /// single filter is sent bare.
    public static func orFilter(_ filters: [Filter]) -> Filter { Filter(.composite(.or, filters)) }

    /// Every field comparison in this filter, depth first.
    var fieldFilters: [(field: FieldPath, op: FilterOperator, value: FirestoreValue)] {
        switch node {
        case .field(let field, let op, let value): return [(field, op, value)]
        case .composite(_, let parts): return parts.flatMap(\.fieldFilters)
        case .invalid: return []
        }
    }
}
