/// One option of a command, declared once: the parser reads its name and the kind of value it takes, the help
/// text prints its name, value placeholder and description from the same declaration.
package struct OptionSpec: Sendable, Equatable {
    /// What the option takes after its name.
    package enum Value: Sendable, Equatable {
        /// Nothing: a switch (`--dry-run`). `--dry-run=true`, `=1`, `=yes`, `=on` turn it on; `=false`, `=0`,
        /// `=no`, `=off` leave it off.
        case none
        /// One value, the next argument or the text after `=` (`--limit 5`, `--limit=5`); the associated text is
        /// the value's placeholder in the help (`N`).
        case required(String)
        /// An optional value, given only after `=` (`--replay`, `--replay=FILE`); an argument after the option
        /// stays a positional argument. The associated text is the placeholder (`FILE`, shown as `[FILE]`).
        case optional(String)
    }

    /// The option as written, with its dashes: `--where`.
    package let name: String
    /// What follows the name.
    package let value: Value
    /// The description in the help, one or more lines (separated by `\n`), without indentation.
    package let help: String

    /// An option named `name` (with its dashes) taking `value`, described by `help`.
    package init(_ name: String, _ value: Value = .none, help: String) {
        self.name = name
        self.value = value
        self.help = help
    }

    /// A switch: `--dry-run`.
    package static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name, .none, help: help)
    }

    /// An option with a value: `--limit N`.
    package static func value(_ name: String, _ placeholder: String, help: String) -> OptionSpec {
        OptionSpec(name, .required(placeholder), help: help)
    }

    /// `-h, --help`, which every command has (the tool handles it before the command's parser runs).
    package static let help = OptionSpec("--help", .none, help: "show this help")

    /// The column the descriptions start at in the help.
    static let descriptionColumn = 29

    /// The name and placeholder as the help shows them: `--limit N`, `--replay [FILE]`, `-h, --help`.
    package var synopsis: String {
        switch value {
        case .none: return name == "--help" ? "-h, --help" : name
        case .required(let placeholder): return name + " " + placeholder
        case .optional(let placeholder): return name + " [" + placeholder + "]"
        }
    }

    /// The option's lines in a command's help: two spaces, the synopsis, the description from
    /// ``descriptionColumn`` (on the next line when the synopsis is too wide), continuation lines aligned.
    package var helpText: String { HelpLayout.entry(synopsis, help, column: Self.descriptionColumn) }
}
