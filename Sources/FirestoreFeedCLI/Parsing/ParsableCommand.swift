/// A subcommand in swift-argument-parser's shape (`ParsableCommand`): declared by one ``CommandSpec`` (the table
/// both the parser and the help read), parsed into typed options, validated as a whole, then run:
///
/// 1. parse (``init(parsing:)``): each argument and option read into its type (`--count 0` is refused here);
/// 2. validate (``validate()``): what needs several options at once (`--checkpoint-key` needs `--checkpoint`)
///    and the query the options make;
/// 3. run (``run()``): connects, does the work, prints.
///
/// Parsing and validation connect to nothing and print nothing; both throw only ``ValidationError``s, which the
/// tool reports as usage errors (exit 2). Options shared between commands are option groups (argument-parser's
/// `@OptionGroup`): structs with the same three steps, which a command holds and calls (``ConnectionOptions``,
/// ``CassetteOptions``, ``QueryOptions``, ``FailureLimit``, ``OutputFormat``).
package protocol ParsableCommand: Sendable {
    /// The command's declaration: name, usage, help texts and options.
    static var spec: CommandSpec { get }

    /// Reads the command's arguments and options into typed values.
    /// - Throws: ``ValidationError`` for an argument or a value that cannot be read.
    init(parsing arguments: ArgumentReader) throws(ValidationError)

    /// Checks what parsing alone cannot: options that need or exclude each other, the query the options make.
    /// Connects to nothing and prints nothing. The default checks nothing.
    /// - Throws: ``ValidationError``.
    func validate() throws(ValidationError)

    /// Does the work.
    /// - Throws: ``CLIError/runtime(_:)`` for a failure; ``CLIError/usage(_:)`` for a command line found
    ///   wrong only once connected (a project ID the client refuses, a query the server's rules forbid).
    func run() async throws(CLIError)
}

extension ParsableCommand {
    /// The command's help, generated from ``spec``.
    package static var help: String { spec.help }

    package func validate() throws(ValidationError) {}

    /// Parses and validates `arguments` (those after the command's name).
    /// - Throws: ``CLIError/usage(_:)`` with the ``ValidationError``'s message.
    package static func parse(_ arguments: [String]) throws(CLIError) -> Self {
        do {
            let command = try Self(parsing: ArgumentReader(arguments, command: spec))
            try command.validate()
            return command
        } catch {
            throw .usage(error.message)
        }
    }

    /// Parses, validates and runs the command on `arguments` (those after the command's name).
    package static func main(_ arguments: [String]) async throws(CLIError) {
        try await parse(arguments).run()
    }
}
