import FirestoreREST

/// Field paths as the CLI takes them (`--where`, `--order-by`, `--select`): dotted, with backticks around a
/// segment that holds dots, spaces, commas or colons; read by Unicode scalars, so a backtick, comma or quote
/// followed by a combining mark is still a delimiter.
package enum FieldPathArgument {
    /// Walks `text` by Unicode scalars, telling `body` for each whether it is a delimiter candidate: outside
    /// backticks and neither a backtick nor escaped. `body` returns `false` to stop early.
    package static func scanUnquoted(_ text: String, _ body: (Unicode.Scalar, _ unquoted: Bool) -> Bool) {
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
    package static func hasUnquoted(in text: String, where predicate: (Unicode.Scalar) -> Bool) -> Bool {
        var found = false
        scanUnquoted(text) { scalar, unquoted in
            found = unquoted && predicate(scalar)
            return !found
        }
        return found
    }

    /// A field path as the CLI takes it: dotted, with backticks around a segment holding dots or spaces;
    /// `__name__` is the document key.
    package static func fieldPath(_ text: String) throws(FirestoreError) -> FieldPath {
        text == "__name__" ? .documentID : try FieldPath(quoted: text)
    }

    /// Splits `a,b.c,\`x,y\`` at the commas outside backticks (read by Unicode scalars); an empty text gives
    /// no fields.
    package static func splitFields(_ text: String) -> [String] {
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
}
