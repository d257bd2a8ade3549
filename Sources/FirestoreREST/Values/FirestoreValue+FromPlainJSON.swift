import FirestoreWire

extension FirestoreValue {
    /// A value from plain JSON, the inverse of ``plainJSON`` where plain JSON can tell: `null` is
    /// `nullValue`, `true`/`false` a `booleanValue`, an integer literal (no fraction, no exponent) an
    /// `integerValue`, any other number a `doubleValue`, a string a `stringValue`, an array an `arrayValue`
    /// and an object a `mapValue`, except that an object of exactly `"__type__": "__vector__"` and a `"value"`
    /// array of numbers is a vector (``VectorValue``; integers become doubles when a `Double` holds them exactly),
    /// so a vector's ``plainJSON`` reads back as the vector. Timestamps, bytes, references and geo points come back as what
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
        case .object(let members):
            if let vector = Self.plainVector(members) {
                self = vector
            } else {
                self = .map(members.mapValues(FirestoreValue.init(plainJSON:)))
            }
        }
    }

    /// The vector an object `{"__type__": "__vector__", "value": [numbers]}` stands for, or `nil` (the
    /// non-finite strings that ``plainJSON`` writes count as numbers).
    private static func plainVector(_ members: [String: JSONValue]) -> FirestoreValue? {
        guard members.count == 2, members["__type__"] == .string("__vector__"),
            case .array(let elements)? = members["value"]
        else { return nil }
        var numbers: [Double] = []
        numbers.reserveCapacity(elements.count)
        for element in elements {
            switch element {
            case .double(let number): numbers.append(number)
            case .integer(let number):
                guard let exact = Double(exactly: number) else { return nil }
                numbers.append(exact)
            case .string("NaN"): numbers.append(.nan)
            case .string("Infinity"): numbers.append(.infinity)
            case .string("-Infinity"): numbers.append(-.infinity)
            default: return nil
            }
        }
        return .vector(numbers)
    }
}
