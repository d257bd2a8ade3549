import FirestoreREST

/// One `--where 'FIELD OP VALUE'` clause: FIELD is a field path (dotted, with backticks around a segment
/// that holds dots or spaces), OP one of `==` `!=` `<` `<=` `>` `>=` `array-contains` `array-contains-any`
/// `in` `not-in`, and VALUE is JSON: an integer literal is an `integerValue`, a number with a fraction or an
/// exponent a `doubleValue`, a string a `stringValue`, `true`/`false`, `null`, an array an `arrayValue`, an
/// object a `mapValue`.
package struct WhereClause: Equatable, Sendable {
    /// The field compared.
    package let field: FieldPath
    /// The comparison.
    package let op: FilterOperator
    /// The value compared with.
    package let value: FirestoreValue

    /// Parses one clause.
    ///
    /// The text is read by Unicode scalars, not `Character`s: a backtick, backslash or space followed by a
    /// combining mark is one `Character` but still a delimiter (as in ``FieldPath/init(quoted:)``, which reads
    /// bytes).
    /// - Throws: a message naming what is wrong (missing parts, unknown operator, invalid JSON with its byte
    ///   offset). The message quotes the clause, and the part of it that is wrong, as ``MessageQuote`` does: at
    ///   most its first 80 characters, then `… (N more characters)`.
    package init(parsing text: String) throws(FirestoreError) {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        func skipSpaces() { while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 } }
        func token() -> String {
            var result = String.UnicodeScalarView()
            var inBackticks = false
            while index < scalars.count {
                let scalar = scalars[index]
                if scalar == "`" { inBackticks.toggle() }
                if scalar == "\\", inBackticks, index + 1 < scalars.count {
                    result.append(scalar)
                    result.append(scalars[index + 1])
                    index += 2
                    continue
                }
                if scalar.properties.isWhitespace, !inBackticks { break }
                result.append(scalar)
                index += 1
            }
            return String(result)
        }
        skipSpaces()
        let fieldText = token()
        skipSpaces()
        let opText = token()
        skipSpaces()
        let valueText = String(String.UnicodeScalarView(scalars[index...]))
        // A clause can be as long as the command line allows (megabytes): the messages quote it, and the part
        // that is wrong, cut short.
        let clause = "--where " + MessageQuote.quoted(text)
        guard !fieldText.isEmpty, !opText.isEmpty, !valueText.isEmpty else {
            throw .invalidArgument(
                "\(clause): expected 'FIELD OP VALUE' with spaces around OP, e.g. 'name == \"Apple\"'")
        }
        guard let op = FilterOperator(symbol: opText) else {
            throw .invalidArgument(
                "\(clause): unknown operator \(MessageQuote.quoted(opText)) (use one of "
                    + FilterOperator.allCases.map(\.symbol).joined(separator: " ") + ")")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(valueText)
        } catch {
            let hint =
                valueText.first.map { $0.isLetter } == true
                ? "; a string needs JSON quotes: " + MessageQuote.quoted(valueText, open: "'\"", close: "\"'") : ""
            throw .invalidArgument("\(clause): VALUE is not JSON (\(error))\(hint)")
        }
        if let literal = Self.oversizedIntegerLiteral(in: valueText) {
            throw .invalidArgument(
                "\(clause): the integer \(MessageQuote.quoted(literal, open: "", close: "")) does not fit in 64 bits")
        }
        do {
            self.field = try FieldPathArgument.fieldPath(fieldText)
        } catch {
            throw .invalidArgument("\(clause): \(error.message)")
        }
        self.op = op
        self.value = FirestoreValue(plainJSON: json)
    }

    /// The first integer literal (digits with no fraction or exponent) outside strings that does not fit in
    /// Int64, or `nil`. JSON would read it as a double; the CLI promises integer literals are integerValues.
    /// Read by Unicode scalars: a quote followed by a combining mark still opens a string.
    package static func oversizedIntegerLiteral(in json: String) -> String? {
        var inString = false
        var escaped = false
        var token = ""
        func check() -> String? {
            defer { token = "" }
            let isInteger = !token.isEmpty && !token.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
            return isInteger && Int64(token) == nil ? token : nil
        }
        for scalar in json.unicodeScalars {
            if inString {
                if escaped {
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == "\"" {
                    inString = false
                }
                continue
            }
            if scalar == "\"" {
                inString = true
            } else if ("0"..."9").contains(scalar) || "-+.eE".unicodeScalars.contains(scalar) {
                token.unicodeScalars.append(scalar)
                continue
            }
            if let found = check() { return found }
        }
        return check()
    }
}
