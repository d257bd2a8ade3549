/// `--format text|jsonl`, shared by `watch` and `demo` (each describes it in its own words).
extension OutputFormat {
    /// The option, described by `help`.
    static func option(help: String) -> OptionSpec {
        .value("--format", "text|jsonl", help: help)
    }

    /// `--format`, else ``text``.
    /// - Throws: ``ValidationError`` for another value.
    init(parsing reader: ArgumentReader) throws(ValidationError) {
        let text = reader.value("--format") ?? "text"
        guard let format = OutputFormat(rawValue: text) else {
            throw ValidationError("--format \"\(text)\": expected text or jsonl")
        }
        self = format
    }
}
