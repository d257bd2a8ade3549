/// Reads the options and positional arguments of one subcommand, by hand (the toolchain ships no argument
/// parser), from the command's ``CommandSpec``: every option is `--name VALUE` or `--name=VALUE` (a value
/// option), `--name` or `--name=true|false` (a switch), or `--name` or `--name=VALUE` (an optional value); an
/// argument after `--` is positional whatever it looks like.
package struct ArgumentReader {
    /// The arguments that are not options, in order.
    package private(set) var positionals: [String] = []
    private var values: [String: [String]] = [:]
    private var switches: Set<String> = []
    private let declared: Set<String>

    /// - Parameters:
    ///   - arguments: the arguments after the subcommand.
    ///   - command: the command whose options are read.
    /// - Throws: ``ValidationError`` for an unknown option (a stray `-n` too), a missing value, or a switch
    ///   given a value that is not a truth value.
    package init(_ arguments: [String], command: CommandSpec) throws(ValidationError) {
        let options = Dictionary(command.options.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        declared = Set(options.keys)
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positionals.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("-"), argument != "-" else {
                positionals.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if argument.hasPrefix("--"), let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            guard let option = options[name] else {
                throw ValidationError(
                    "unknown option \(name)" + Suggestion.hint(for: name, among: command.options.map(\.name)))
            }
            switch option.value {
            case .none:
                switch inlineValue?.lowercased() {
                case nil, "true", "1", "yes", "on": switches.insert(name)
                case "false", "0", "no", "off": switches.remove(name)
                case let other?:
                    throw ValidationError("\(name) takes no value, got \"\(other)\" (use \(name) or \(name)=false)")
                }
            case .required:
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw ValidationError("\(name) needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            case .optional:
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    switches.insert(name)
                }
            }
        }
    }

    /// Whether the command declares `option`.
    package func declares(_ option: String) -> Bool { declared.contains(option) }

    /// The last value of `option`, or `nil`.
    package func value(_ option: String) -> String? {
        assert(declared.contains(option), "\(option) is not declared")
        return values[option]?.last
    }

    /// Every value of a repeatable `option`, in order.
    package func all(_ option: String) -> [String] {
        assert(declared.contains(option), "\(option) is not declared")
        return values[option] ?? []
    }

    /// Whether switch `option` was given (an optional-value option without a value, too).
    package func has(_ option: String) -> Bool {
        assert(declared.contains(option), "\(option) is not declared")
        return switches.contains(option)
    }
}
