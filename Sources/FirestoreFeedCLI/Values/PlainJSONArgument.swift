import FirestoreREST

/// Values given as plain JSON on the command line (`--where` and cursor values, the data of `set`, `update`,
/// `create`, `add`, a `data` member of `import`): one rule for all of them. `null` is a `nullValue`,
/// `true`/`false` a `booleanValue`, an integer literal (no fraction, no exponent) an `integerValue` (refused
/// when it does not fit in 64 bits, never rounded into a double), any other number a `doubleValue`, a string a
/// `stringValue`, an array an `arrayValue` and an object a `mapValue`. A repeated object key is refused.
package enum PlainJSONArgument {
    /// One value.
    /// - Parameter what: names the argument in errors (`set fruits/apple`, `--where "n == 1"`).
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming `what`: invalid JSON (with its byte offset, and a
    ///   hint when the text looks like an unquoted string) or an integer literal that does not fit in 64 bits.
    /// - Complexity: O(n) in the length of `text`.
    package static func value(_ text: String, what: String) throws(FirestoreError) -> FirestoreValue {
        try value(text, what: what, hint: "a string needs JSON quotes: '\"\(text)\"'")
    }

    /// One value; `hint` follows the error when `text` is not JSON and starts with a letter.
    private static func value(_ text: String, what: String, hint: String) throws(FirestoreError) -> FirestoreValue {
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            let hint = text.first.map { $0.isLetter } == true ? "; \(hint)" : ""
            throw .invalidArgument("\(what): not JSON (\(error))\(hint)")
        }
        if let literal = WhereClause.oversizedIntegerLiteral(in: text) {
            throw .invalidArgument("\(what): the integer \(literal) does not fit in 64 bits")
        }
        return FirestoreValue(plainJSON: json)
    }

    /// A document's fields: `text` must be a JSON object.
    /// - Throws: as ``value(_:what:)``, and `.invalidArgument` when the JSON is not an object.
    /// - Complexity: O(n) in the length of `text`.
    package static func fields(_ text: String, what: String) throws(FirestoreError) -> [String: FirestoreValue] {
        let example = "expected a JSON object of fields, e.g. '{\"name\":\"Apple\"}'"
        guard case .map(let fields) = try value(text, what: what, hint: example) else {
            throw .invalidArgument("\(what): \(example)")
        }
        return fields
    }
}
