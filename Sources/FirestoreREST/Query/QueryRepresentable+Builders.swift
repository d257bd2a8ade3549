/// Builder methods in Firebase SDK terms. Each returns a new ``Query``; field names are dotted paths
/// (`"address.city"`), or ``FieldPath`` values for names that hold dots or other special characters.
extension QueryRepresentable {
    private func filter(_ field: String, _ op: FilterOperator, _ value: FirestoreValue) -> Query {
        query.adding(field: Result { () throws(FirestoreError) in try FieldPath(dotted: field) }, op, value)
    }

    private func filter(_ field: FieldPath, _ op: FilterOperator, _ value: FirestoreValue) -> Query {
        query.adding(field: .success(field), op, value)
    }

    /// Documents whose `field` equals `value` (`EQUAL`; null becomes `IS_NULL`, NaN `IS_NAN`).
    public func whereField(_ field: String, isEqualTo value: any FirestoreValueConvertible) -> Query {
        filter(field, .equal, value.firestoreValue)
    }
    /// Documents whose `field` exists and differs from `value` (`NOT_EQUAL`; null becomes `IS_NOT_NULL`,
    /// NaN `IS_NOT_NAN`). Documents where `field` is null or missing never match.
    public func whereField(_ field: String, isNotEqualTo value: any FirestoreValueConvertible) -> Query {
        filter(field, .notEqual, value.firestoreValue)
    }
    /// Documents whose `field` sorts before `value` (`LESS_THAN`).
    public func whereField(_ field: String, isLessThan value: any FirestoreValueConvertible) -> Query {
        filter(field, .lessThan, value.firestoreValue)
    }
    /// `LESS_THAN_OR_EQUAL`.
    public func whereField(_ field: String, isLessThanOrEqualTo value: any FirestoreValueConvertible) -> Query {
        filter(field, .lessThanOrEqual, value.firestoreValue)
    }
    /// `GREATER_THAN`.
    public func whereField(_ field: String, isGreaterThan value: any FirestoreValueConvertible) -> Query {
        filter(field, .greaterThan, value.firestoreValue)
    }
    /// `GREATER_THAN_OR_EQUAL`.
    public func whereField(_ field: String, isGreaterThanOrEqualTo value: any FirestoreValueConvertible) -> Query {
        filter(field, .greaterThanOrEqual, value.firestoreValue)
    }
    /// Documents whose array `field` holds `value` (`ARRAY_CONTAINS`).
    public func whereField(_ field: String, arrayContains value: any FirestoreValueConvertible) -> Query {
        filter(field, .arrayContains, value.firestoreValue)
    }
    /// Documents whose array `field` holds any of `values` (`ARRAY_CONTAINS_ANY`, at most 30 values).
    public func whereField(_ field: String, arrayContainsAny values: [any FirestoreValueConvertible]) -> Query {
        filter(field, .arrayContainsAny, .array(values.map(\.firestoreValue)))
    }
    /// Documents whose `field` equals one of `values` (`IN`, at most 30 values).
    public func whereField(_ field: String, in values: [any FirestoreValueConvertible]) -> Query {
        filter(field, .in, .array(values.map(\.firestoreValue)))
    }
    /// Documents whose `field` exists and equals none of `values` (`NOT_IN`, at most 10 values).
    public func whereField(_ field: String, notIn values: [any FirestoreValueConvertible]) -> Query {
        filter(field, .notIn, .array(values.map(\.firestoreValue)))
    }

    /// A filter on a ``FieldPath`` with any operator (`FieldPath.documentID` filters on the document key;
    /// a bare ID or relative path value is expanded to the full reference).
    public func whereField(_ field: FieldPath, _ op: FilterOperator, _ value: any FirestoreValueConvertible) -> Query {
        filter(field, op, value.firestoreValue)
    }

    /// A filter given by operator, as the CLI's `--where` builds it.
    public func whereField(_ field: String, _ op: FilterOperator, _ value: any FirestoreValueConvertible) -> Query {
        filter(field, op, value.firestoreValue)
    }

    /// Orders the results by `field` (a dotted path), ascending unless `descending`.
    public func order(by field: String, descending: Bool = false) -> Query {
        query.ordering(field: Result { () throws(FirestoreError) in try FieldPath(dotted: field) },
                       descending: descending)
    }

    /// Orders the results by `field`, ascending unless `descending`.
    public func order(by field: FieldPath, descending: Bool = false) -> Query {
        query.ordering(field: .success(field), descending: descending)
    }

    /// Returns at most `count` documents (`limit`; 0 returns none). A negative count is an error.
    public func limit(to count: Int) -> Query { query.limited(to: count) }
}
