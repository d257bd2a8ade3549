/// How an error message quotes a value that came from outside (a command-line argument, a document ID, a line
/// of a file): cut short when it is long, so that a 1 MB value does not make a 1 MB message, and, where asked,
/// with its control characters written out, so that a NUL is seen rather than lost on the terminal.
package enum MessageQuote {
    /// The most characters of a value a message quotes: enough for any field path, operator or value one reads
    /// at a glance, few enough that the message stays within a line or two of a terminal.
    package static let maximumCharacters = 80

    /// `text` between `open` and `close` (double quotes by default). When it has more than
    /// ``maximumCharacters`` characters, only its first ``maximumCharacters`` are quoted, followed by `…` inside
    /// the quotes and by how many characters were left out after them: `"aaaa…" (999920 more characters)`.
    /// With `escapingControls`, the quoted characters are written as ``visible(_:)`` writes them; the count
    /// left out is of the characters of `text`.
    /// - Complexity: O(n) in the length of `text` (the characters left out are counted).
    package static func quoted(
        _ text: String, open: String = "\"", close: String = "\"", escapingControls: Bool = false
    ) -> String {
        var end = text.startIndex
        var kept = 0
        while kept < maximumCharacters, end < text.endIndex {
            text.formIndex(after: &end)
            kept += 1
        }
        let head = escapingControls ? visible(String(text[..<end])) : String(text[..<end])
        guard end < text.endIndex else { return open + head + close }
        let rest = text[end...].count
        return open + head + "…" + close + " (\(rest) more \(rest == 1 ? "character" : "characters"))"
    }

    /// `text` with each control character (Unicode category Cc: U+0000 to U+001F and U+007F to U+009F) written
    /// as `\u{X}` in hexadecimal (`a\u{0}b`), as a Swift string literal writes it, and each backslash doubled, so
    /// that a written-out control character cannot be mistaken for one that was in `text`.
    package static func visible(_ text: String) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            if scalar.properties.generalCategory == .control {
                result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            } else if scalar == "\\" {
                result += "\\\\"
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
