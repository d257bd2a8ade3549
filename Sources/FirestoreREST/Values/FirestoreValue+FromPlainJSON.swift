extension FirestoreValue {
    /// A value from plain JSON, the inverse of ``plainJSON`` where plain JSON can tell: `null` is
    /// `nullValue`, `true`/`false` a `booleanValue`, an integer literal (no fraction, no exponent) an
    /// `integerValue`, any other number a `doubleValue`, a string a `stringValue`, an array an `arrayValue`
    /// and an object a `mapValue`. Timestamps, bytes, references and geo points come back as what
    /// ``plainJSON`` wrote for them (strings and maps): use ``init(restJSON:at:)`` to round-trip those.
    ///
    /// The CLI reads `--where` values and cursor values with it (`3` is an integer, `3.0` a double).
    /// - Complexity: O(n) in the number of JSON values.
    package init(plainJSON json: JSONValue) {
        switch json {
        case .null: self = .null
        case .bool(let flag): self = .boolean(flag)
        case .integer(let number): self = .integer(number)
        case .double(let number): self = .double(number)
        case .string(let text): self = .string(text)
        case .array(let elements): self = .array(elements.map(FirestoreValue.init(plainJSON:)))
        case .object(let members): self = .map(members.mapValues(FirestoreValue.init(plainJSON:)))
        }
    }
}
