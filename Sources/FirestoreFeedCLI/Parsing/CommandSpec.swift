/// A command's declaration: its name, usage lines, what it does, and its options. The parser
/// (``ArgumentReader``) and the help (``help``) both come from it, so an option cannot be parsed without being
/// documented, or documented without being parsed.
package struct CommandSpec: Sendable {
    /// The executable's name, first on every usage line.
    package let tool: String
    /// The command's name (`watch`); empty for a tool that has no commands (`RecordRecordings`).
    package let name: String
    /// The usage lines after the tool's and the command's names: `COLLECTION_PATH [options]`.
    package let usage: [String]
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
    ///   - abstract: the description paragraphs.
    ///   - sections: extra sections before `OPTIONS:` (each line as printed).
    ///   - options: the command's options in help order; `-h, --help` is added at the end.
    package init(
        tool: String = "firestore-feed", name: String = "", usage: [String], abstract: String,
        sections: String = "", options: [OptionSpec]
    ) {
        self.tool = tool
        self.name = name
        self.usage = usage
        self.abstract = abstract
        self.sections = sections
        self.declaredOptions = options
    }

    /// Every option the command accepts: the declared ones and `--help`.
    package var options: [OptionSpec] { declaredOptions + [.help] }

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
