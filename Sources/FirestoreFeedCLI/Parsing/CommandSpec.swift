/// A command's declaration: its name, usage lines, what it does, and its options. The parser
/// (``ArgumentReader``), the command's help (``help``) and its line in the tool's help (``listing``) all come
/// from it, so an option cannot be parsed without being documented, or documented without being parsed.
package struct CommandSpec: Sendable {
    /// The executable's name, first on every usage line.
    package let tool: String
    /// The command's name (`watch`); empty for a tool that has no commands (`RecordRecordings`).
    package let name: String
    /// The usage lines after the tool's and the command's names: `COLLECTION_PATH [options]`.
    package let usage: [String]
    /// The description in the tool's list of commands: one or more short lines (separated by `\n`).
    package let summary: String
    /// The command as the tool's list of commands shows it: `watch COLLECTION_PATH`.
    package let synopsis: String
    /// What the command does: the paragraphs between the usage and the options, without indentation.
    package let abstract: String
    /// Extra sections printed before the options (`SCENARIOS:` and their lines), or empty.
    package let sections: String
    /// The options in help order, without `-h, --help` (see ``options``).
    package let declaredOptions: [OptionSpec]

    /// - Parameters:
    ///   - tool: the executable's name (`firestore-feed`).
    ///   - name: the command's name, or empty for a tool without commands.
    ///   - usage: usage lines without the tool's and the command's names.
    ///   - summary: the description in the tool's list of commands.
    ///   - synopsis: the command in that list; by default the name and the first usage line's arguments,
    ///     without `[options]`.
    ///   - abstract: the description paragraphs.
    ///   - sections: extra sections before `OPTIONS:` (each line as printed).
    ///   - options: the command's options in help order; `-h, --help` is added at the end.
    package init(
        tool: String = "firestore-feed", name: String = "", usage: [String], summary: String = "",
        synopsis: String? = nil, abstract: String, sections: String = "", options: [OptionSpec]
    ) {
        self.tool = tool
        self.name = name
        self.usage = usage
        self.summary = summary
        let arguments = (usage.first ?? "").split(separator: " ").filter { $0 != "[options]" }.map(String.init)
        self.synopsis = synopsis ?? ([name] + arguments).filter { !$0.isEmpty }.joined(separator: " ")
        self.abstract = abstract
        self.sections = sections
        self.declaredOptions = options
    }

    /// Every option the command accepts: the declared ones and `--help`.
    package var options: [OptionSpec] { declaredOptions + [.help] }

    /// The column the descriptions start at in the tool's list of commands.
    static let listingColumn = 26

    /// The command's entry in the tool's list of commands: the synopsis, then the summary from
    /// ``listingColumn``.
    package var listing: String { HelpLayout.entry(synopsis, summary, column: Self.listingColumn) }

    /// The command's help: `USAGE:` lines, the abstract, the extra sections and one entry per option.
    package var help: String {
        var lines: [String] = []
        let command = name.isEmpty ? tool : tool + " " + name
        for (index, line) in usage.enumerated() {
            lines.append((index == 0 ? "USAGE: " : "       ") + command + " " + line)
        }
        lines.append("")
        lines.append(abstract)
        if !sections.isEmpty {
            lines.append("")
            lines.append(sections)
        }
        lines.append("")
        lines.append("OPTIONS:")
        lines.append(contentsOf: options.map(\.helpText))
        return lines.joined(separator: "\n")
    }
}
