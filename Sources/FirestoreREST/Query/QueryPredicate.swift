import FirestoreWire

/// One query condition as a value, the enum `@FirestoreQuery` takes in the iOS SDK
/// (the Firebase Apple SDK's `QueryPredicate`), so a list of predicates can describe a whole query:
/// `[.whereField("isFavourite", isEqualTo: true), .order(by: "name"), .limit(to: 20)]`.
///
/// Beyond the SDK's cases it has ``isNotEqualTo(_:_:)`` and ``filter(_:)`` (any ``Filter``, OR filters
/// included), which the SDK's enum lacks. Apply predicates with ``QueryRepresentable/applying(_:)``.
public enum QueryPredicate: Sendable {
    case isEqualTo(_ field: String, _ value: any FirestoreValueConvertible)
    case isNotEqualTo(_ field: String, _ value: any FirestoreValueConvertible)
    case isIn(_ field: String, _ values: [any FirestoreValueConvertible])
    case isNotIn(_ field: String, _ values: [any FirestoreValueConvertible])
    case arrayContains(_ field: String, _ value: any FirestoreValueConvertible)
    case arrayContainsAny(_ field: String, _ values: [any FirestoreValueConvertible])
    case isLessThan(_ field: String, _ value: any FirestoreValueConvertible)
    case isGreaterThan(_ field: String, _ value: any FirestoreValueConvertible)
    case isLessThanOrEqualTo(_ field: String, _ value: any FirestoreValueConvertible)
    case isGreaterThanOrEqualTo(_ field: String, _ value: any FirestoreValueConvertible)
    /// Any filter, composite OR/AND included.
    case filter(Filter)
    /// `order(by:descending:)`; the Bool is `descending`.
    case orderBy(_ field: String, _ descending: Bool)
    case limitTo(_ count: Int)
    case limitToLast(_ count: Int)

    public static func whereField(_ field: String, isEqualTo value: any FirestoreValueConvertible) -> Self {
        .isEqualTo(field, value)
    }
    public static func whereField(_ field: String, isNotEqualTo value: any FirestoreValueConvertible) -> Self {
        .isNotEqualTo(field, value)
    }
    public static func whereField(_ field: String, isIn values: [any FirestoreValueConvertible]) -> Self {
        .isIn(field, values)
    }
    public static func whereField(_ field: String, isNotIn values: [any FirestoreValueConvertible]) -> Self {
        .isNotIn(field, values)
    }
    public static func whereField(_ field: String, arrayContains value: any FirestoreValueConvertible) -> Self {
        .arrayContains(field, value)
    }
    public static func whereField(_ field: String, arrayContainsAny values: [any FirestoreValueConvertible]) -> Self {
        .arrayContainsAny(field, values)
    }
    public static func whereField(_ field: String, isLessThan value: any FirestoreValueConvertible) -> Self {
        .isLessThan(field, value)
    }
    public static func whereField(_ field: String, isGreaterThan value: any FirestoreValueConvertible) -> Self {
        .isGreaterThan(field, value)
    }
    public static func whereField(_ field: String, isLessThanOrEqualTo value: any FirestoreValueConvertible) -> Self {
        .isLessThanOrEqualTo(field, value)
    }
    public static func whereField(_ field: String, isGreaterThanOrEqualTo value: any FirestoreValueConvertible)
        -> Self
    {
        .isGreaterThanOrEqualTo(field, value)
    }
    /// Any ``Filter``, e.g. `.whereFilter(.orFilter([...]))`.
    public static func whereFilter(_ filter: Filter) -> Self { .filter(filter) }
    public static func order(by field: String, descending: Bool = false) -> Self { .orderBy(field, descending) }
    public static func limit(to count: Int) -> Self { .limitTo(count) }
    public static func limit(toLast count: Int) -> Self { .limitToLast(count) }

    // The SDK's alternate spellings, kept so code ports unchanged (including its `field:` label on
    // `where(field:arrayContains:)`).
    public static func `where`(_ field: String, isEqualTo value: any FirestoreValueConvertible) -> Self {
        .isEqualTo(field, value)
    }
    public static func `where`(_ field: String, isIn values: [any FirestoreValueConvertible]) -> Self {
        .isIn(field, values)
    }
    public static func `where`(_ field: String, isNotIn values: [any FirestoreValueConvertible]) -> Self {
        .isNotIn(field, values)
    }
    public static func `where`(field: String, arrayContains value: any FirestoreValueConvertible) -> Self {
        .arrayContains(field, value)
    }
    public static func `where`(_ field: String, arrayContainsAny values: [any FirestoreValueConvertible]) -> Self {
        .arrayContainsAny(field, values)
    }
    public static func `where`(_ field: String, isLessThan value: any FirestoreValueConvertible) -> Self {
        .isLessThan(field, value)
    }
    public static func `where`(_ field: String, isGreaterThan value: any FirestoreValueConvertible) -> Self {
        .isGreaterThan(field, value)
    }
    public static func `where`(_ field: String, isLessThanOrEqualTo value: any FirestoreValueConvertible) -> Self {
        .isLessThanOrEqualTo(field, value)
    }
    public static func `where`(_ field: String, isGreaterThanOrEqualTo value: any FirestoreValueConvertible)
        -> Self
    {
        .isGreaterThanOrEqualTo(field, value)
    }
}

extension QueryRepresentable {
    /// This query with each predicate applied in order, exactly as the matching builder call would.
    public func applying(_ predicates: [QueryPredicate]) -> Query {
        predicates.reduce(query) { query, predicate in
            switch predicate {
            case .isEqualTo(let field, let value): return query.whereField(field, isEqualTo: value)
            case .isNotEqualTo(let field, let value): return query.whereField(field, isNotEqualTo: value)
            case .isIn(let field, let values): return query.whereField(field, in: values)
            case .isNotIn(let field, let values): return query.whereField(field, notIn: values)
            case .arrayContains(let field, let value): return query.whereField(field, arrayContains: value)
            case .arrayContainsAny(let field, let values): return query.whereField(field, arrayContainsAny: values)
            case .isLessThan(let field, let value): return query.whereField(field, isLessThan: value)
            case .isGreaterThan(let field, let value): return query.whereField(field, isGreaterThan: value)
            case .isLessThanOrEqualTo(let field, let value): return query.whereField(field, isLessThanOrEqualTo: value)
            case .isGreaterThanOrEqualTo(let field, let value):
                return query.whereField(field, isGreaterThanOrEqualTo: value)
            case .filter(let filter): return query.whereFilter(filter)
            case .orderBy(let field, let descending): return query.order(by: field, descending: descending)
            case .limitTo(let count): return query.limit(to: count)
            case .limitToLast(let count): return query.limit(toLast: count)
            }
        }
    }
}
