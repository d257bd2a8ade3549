/// A command line that cannot run, found while it is parsed or validated (swift-argument-parser's
/// `ValidationError`): the tool prints `error: <message>` and where the command's help is, and exits 2.
package struct ValidationError: Error, Equatable, Sendable {
    /// What is wrong, in one line: `--count "0": expected a whole number above 0`.
    package let message: String

    package init(_ message: String) {
        self.message = message
    }
}
