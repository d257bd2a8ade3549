/// The two-column entries of a help text: an indented head (`  --limit N`, `  watch COLLECTION_PATH`), then
/// its description from a fixed column, continuation lines aligned under it.
package enum HelpLayout {
    /// `head` indented by two spaces and `description` (lines separated by `\n`) from `column`; the
    /// description starts on the next line when the head leaves less than one space before the column.
    /// - Complexity: O(n) in the length of the texts.
    package static func entry(_ head: String, _ description: String, column: Int) -> String {
        let indent = String(repeating: " ", count: column)
        var first = "  " + head
        var lines = description.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if first.count + 1 > column {
            first += "\n" + indent + lines.removeFirst()
        } else {
            first += String(repeating: " ", count: column - first.count) + lines.removeFirst()
        }
        return ([first] + lines.map { indent + $0 }).joined(separator: "\n")
    }
}
