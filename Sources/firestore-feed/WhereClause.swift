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
            throw .invalidArgument("--where \"\(text)\": expected 'FIELD OP VALUE'")
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
            throw .invalidArgument("--where \"\(text)\": VALUE is not JSON (\(error))")
        }
        if fieldText == "__name__" {
            self.field = .documentID
        } else {
            do {
                self.field = try FieldPath(quoted: fieldText)
            } catch {
                throw .invalidArgument("--where \"\(text)\": \(error.message)")
            }
        }
        self.op = op
        self.value = Self.firestoreValue(json)
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
