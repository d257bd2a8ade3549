import FirestoreWire

/// A comparison operator of a field filter, named as StructuredQuery `FieldFilter.Operator`.
public enum FilterOperator: String, Sendable, Hashable, CaseIterable {
    case lessThan = "LESS_THAN"
    case lessThanOrEqual = "LESS_THAN_OR_EQUAL"
    case greaterThan = "GREATER_THAN"
    case greaterThanOrEqual = "GREATER_THAN_OR_EQUAL"
    case equal = "EQUAL"
    case notEqual = "NOT_EQUAL"
    case arrayContains = "ARRAY_CONTAINS"
    case arrayContainsAny = "ARRAY_CONTAINS_ANY"
    case `in` = "IN"
    case notIn = "NOT_IN"

    /// The operator's symbol as the SDKs and the CLI's `--where` write it: `==`, `array-contains`, ...
    public var symbol: String {
        switch self {
        case .lessThan: return "<"
        case .lessThanOrEqual: return "<="
        case .greaterThan: return ">"
        case .greaterThanOrEqual: return ">="
        case .equal: return "=="
        case .notEqual: return "!="
        case .arrayContains: return "array-contains"
        case .arrayContainsAny: return "array-contains-any"
        case .in: return "in"
        case .notIn: return "not-in"
        }
    }

    /// The operator for a symbol (`"=="`, `"not-in"`, ...), or `nil`.
    public init?(symbol: String) {
        guard let match = Self.allCases.first(where: { $0.symbol == symbol }) else { return nil }
        self = match
    }

    /// Inequalities make the server order by their field first (REST reference: `StructuredQuery.order_by`).
    package var isInequality: Bool {
        switch self {
        case .lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .notEqual, .notIn: return true
        default: return false
        }
    }

    /// Operators whose value must be an array (`IN`, `NOT_IN`, `ARRAY_CONTAINS_ANY`).
    package var takesArray: Bool { self == .in || self == .notIn || self == .arrayContainsAny }
}
