/// How an error message quotes a value that came from outside (a command-line argument, a line of a file): cut
/// short when it is long, so that a 1 MB value does not make a 1 MB message.
package enum MessageQuote {
    /// The most characters of a value a message quotes: enough for any field path, operator or value one reads
    /// at a glance, few enough that the message stays within a line or two of a terminal.
    package static let maximumCharacters = 80

    /// `text` between `open` and `close` (double quotes by default). When it has more than
    /// ``maximumCharacters`` characters, only its first ``maximumCharacters`` are quoted, followed by `…` inside
    /// the quotes and by how many characters were left out after them: `"aaaa…" (999920 more characters)`.
    /// - Complexity: O(n) in the length of `text` (the characters left out are counted).
    package static func quoted(_ text: String, open: String = "\"", close: String = "\"") -> String {
        var end = text.startIndex
        var kept = 0
        while kept < maximumCharacters, end < text.endIndex {
            text.formIndex(after: &end)
            kept += 1
        }
        let head = String(text[..<end])
        guard end < text.endIndex else { return open + head + close }
        let rest = text[end...].count
        return open + head + "…" + close + " (\(rest) more \(rest == 1 ? "character" : "characters"))"
    }
}
