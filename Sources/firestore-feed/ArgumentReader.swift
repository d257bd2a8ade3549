/// Reads `--flag value` options and positional arguments of one subcommand, by hand (the toolchain ships no
/// argument parser). Every flag takes one value except those listed as switches.
struct ArgumentReader {
    private(set) var positionals: [String] = []
    private(set) var values: [String: [String]] = [:]
    private(set) var switches: Set<String> = []

    /// - Parameters:
    ///   - arguments: the arguments after the subcommand.
    ///   - valueFlags: flags that take a value (`--where`).
    ///   - switchFlags: flags without a value (`--dry-run`).
    ///   - help: the command's help, carried by usage errors.
    /// - Throws: ``CLIError/usage(_:help:)`` for an unknown flag or a missing value.
    init(_ arguments: [String], valueFlags: Set<String>, switchFlags: Set<String>, help: String) throws(CLIError) {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positionals.append(contentsOf: arguments[index...])
                break
            }
            guard argument.hasPrefix("--") else {
                positionals.append(argument)
                continue
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if switchFlags.contains(name), inlineValue == nil {
                switches.insert(name)
            } else if valueFlags.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw .usage("\(name) needs a value", help: help) }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw .usage("unknown option \(name)", help: help)
            }
        }
    }

    /// The last value of `flag`, or `nil`.
    func value(_ flag: String) -> String? { values[flag]?.last }
    /// Every value of a repeatable `flag`, in order.
    func all(_ flag: String) -> [String] { values[flag] ?? [] }
    /// Whether switch `flag` was given.
    func has(_ flag: String) -> Bool { switches.contains(flag) }
}
