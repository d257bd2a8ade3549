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
    /// - Throws: a message naming what is wrong (missing parts, unknown operator, invalid JSON with its byte
    ///   offset).
    init(parsing text: String) throws(FirestoreError) {
        let characters = Array(text)
        var index = 0
        func skipSpaces() { while index < characters.count, characters[index].isWhitespace { index += 1 } }
        func token() -> String {
            var result = ""
            var inBackticks = false
            while index < characters.count {
                let character = characters[index]
                if character == "`" { inBackticks.toggle() }
                if character == "\\", inBackticks, index + 1 < characters.count {
                    result.append(character)
                    index += 1
                    result.append(characters[index])
                    index += 1
                    continue
                }
                if character.isWhitespace, !inBackticks { break }
                result.append(character)
                index += 1
            }
            return result
        }
        skipSpaces()
        let fieldText = token()
        skipSpaces()
        let opText = token()
        skipSpaces()
        let valueText = String(characters[index...])
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
    static func oversizedIntegerLiteral(in json: String) -> String? {
        var inString = false
        var escaped = false
        var token = ""
        func check() -> String? {
            defer { token = "" }
            let isInteger = !token.isEmpty && !token.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
            return isInteger && Int64(token) == nil ? token : nil
        }
        for character in json {
            if inString {
                if escaped { escaped = false } else if character == "\\" { escaped = true } else if character == "\"" {
                    inString = false
                }
                continue
            }
            if character == "\"" {
                inString = true
            } else if character.isNumber || "-+.eE".contains(character) {
                token.append(character)
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

    /// Whether `text` has a character matching `predicate` outside backticks.
    static func hasUnquoted(in text: String, where predicate: (Character) -> Bool) -> Bool {
        var inBackticks = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if character == "\\", inBackticks {
                escaped = true
            } else if character == "`" {
                inBackticks.toggle()
            } else if !inBackticks, predicate(character) {
                return true
            }
        }
        return false
    }

    /// A field path as the CLI takes it: dotted, with backticks around a segment holding dots or spaces;
    /// `__name__` is the document key.
    static func fieldPath(_ text: String) throws(FirestoreError) -> FieldPath {
        text == "__name__" ? .documentID : try FieldPath(quoted: text)
    }

    /// Splits `a,b.c,\`x,y\`` at the commas outside backticks; an empty text gives no fields.
    static func splitFields(_ text: String) -> [String] {
        if text.isEmpty { return [] }
        var fields: [String] = []
        var current = ""
        var inBackticks = false
        var escaped = false
        for character in text {
            if escaped {
                escaped = false
            } else if character == "\\", inBackticks {
                escaped = true
            } else if character == "`" {
                inBackticks.toggle()
            } else if character == ",", !inBackticks {
                fields.append(current)
                current = ""
                continue
            }
            current.append(character)
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
