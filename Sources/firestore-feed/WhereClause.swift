import FirestoreREST

/// One `--where 'FIELD OP VALUE'` clause: FIELD is a field path (dotted, with backticks around a segment
/// that holds dots or spaces), OP one of `==` `!=` `<` `<=` `>` `>=` `array-contains` `array-contains-any`
/// `in` `not-in`, and VALUE is JSON: an integer literal is an `integerValue`, a number with a fraction or an
/// exponent a `doubleValue`, a string a `stringValue`, `true`/`false`, `null`, an array an `arrayValue`, an
/// object a `mapValue`.
struct WhereClause: Equatable {
    let field: FieldPath
    let op: FilterOperator
    let value: FirestoreValue

    /// Parses one clause.
    ///
    /// The text is read by Unicode scalars, not `Character`s: a backtick, backslash or space followed by a
    /// combining mark is one `Character` but still a delimiter (as in ``FieldPath/init(quoted:)``, which reads
    /// bytes).
    /// - Throws: a message naming what is wrong (missing parts, unknown operator, invalid JSON with its byte
    ///   offset).
    init(parsing text: String) throws(FirestoreError) {
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
        guard !fieldText.isEmpty, !opText.isEmpty, !valueText.isEmpty else {
            throw .invalidArgument(
                "--where \"\(text)\": expected 'FIELD OP VALUE' with spaces around OP, e.g. 'name == \"Apple\"'")
        }
        guard let op = FilterOperator(symbol: opText) else {
            throw .invalidArgument(
                "--where \"\(text)\": unknown operator \"\(opText)\" (use one of "
                    + FilterOperator.allCases.map(\.symbol).joined(separator: " ") + ")")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(valueText)
        } catch {
            let hint = valueText.first.map { $0.isLetter } == true ? "; a string needs JSON quotes: '\"\(valueText)\"'" : ""
            throw .invalidArgument("--where \"\(text)\": VALUE is not JSON (\(error))\(hint)")
        }
        if let literal = Self.oversizedIntegerLiteral(in: valueText) {
            throw .invalidArgument("--where \"\(text)\": the integer \(literal) does not fit in 64 bits")
        }
        do {
            self.field = try Self.fieldPath(fieldText)
        } catch {
            throw .invalidArgument("--where \"\(text)\": \(error.message)")
        }
        self.op = op
        self.value = Self.firestoreValue(json)
    }

    /// The first integer literal (digits with no fraction or exponent) outside strings that does not fit in
    /// Int64, or `nil`. JSON would read it as a double; the CLI promises integer literals are integerValues.
    /// Read by Unicode scalars: a quote followed by a combining mark still opens a string.
    static func oversizedIntegerLiteral(in json: String) -> String? {
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
                if escaped { escaped = false } else if scalar == "\\" { escaped = true } else if scalar == "\"" {
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

    /// Seconds as a JSON number (`0.5`, `2`), or `nil`: Swift's `Double("0x10")` would take hexadecimal.
    static func seconds(_ text: String) -> Double? {
        switch try? JSONValue.parse(text) {
        case .integer(let number)?: return Double(number)
        case .double(let number)?: return number
        default: return nil
        }
    }

    /// Walks `text` by Unicode scalars, telling `body` for each whether it is a delimiter candidate: outside
    /// backticks and neither a backtick nor escaped. `body` returns `false` to stop early.
    static func scanUnquoted(_ text: String, _ body: (Unicode.Scalar, _ unquoted: Bool) -> Bool) {
        var inBackticks = false
        var escaped = false
        for scalar in text.unicodeScalars {
            var unquoted = false
            if escaped {
                escaped = false
            } else if scalar == "\\", inBackticks {
                escaped = true
            } else if scalar == "`" {
                inBackticks.toggle()
            } else {
                unquoted = !inBackticks
            }
            if !body(scalar, unquoted) { return }
        }
    }

    /// Whether `text` has a Unicode scalar matching `predicate` outside backticks.
    static func hasUnquoted(in text: String, where predicate: (Unicode.Scalar) -> Bool) -> Bool {
        var found = false
        scanUnquoted(text) { scalar, unquoted in
            found = unquoted && predicate(scalar)
            return !found
        }
        return found
    }

    /// A field path as the CLI takes it: dotted, with backticks around a segment holding dots or spaces;
    /// `__name__` is the document key.
    static func fieldPath(_ text: String) throws(FirestoreError) -> FieldPath {
        text == "__name__" ? .documentID : try FieldPath(quoted: text)
    }

    /// Splits `a,b.c,\`x,y\`` at the commas outside backticks (read by Unicode scalars); an empty text gives
    /// no fields.
    static func splitFields(_ text: String) -> [String] {
        if text.isEmpty { return [] }
        var fields: [String] = []
        var current = ""
        scanUnquoted(text) { scalar, unquoted in
            if unquoted, scalar == "," {
                fields.append(current)
                current = ""
            } else {
                current.unicodeScalars.append(scalar)
            }
            return true
        }
        fields.append(current)
        return fields
    }

    /// Plain JSON to a Firestore value, as described on the type.
    static func firestoreValue(_ json: JSONValue) -> FirestoreValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .boolean(flag)
        case .integer(let number): return .integer(number)
        case .double(let number): return .double(number)
        case .string(let text): return .string(text)
        case .array(let elements): return .array(elements.map(firestoreValue))
        case .object(let members): return .map(members.mapValues(firestoreValue))
        }
    }
}
