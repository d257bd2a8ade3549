import FirestoreREST
import Foundation

/// The lines the tool prints on stderr when it stops with an error.
package enum ErrorReport {
    /// Where a usage error's report points for help.
    package enum HelpPointer: Sendable, Equatable {
        /// `see 'firestore-feed help'`.
        case tool
        /// `see 'firestore-feed help COMMAND'`.
        case command(String)
        /// The whole help, after a blank line: for a tool that has no `help` command (`RecordRecordings`).
        case text(String)
    }

    /// `error`'s report, without the final newline: a usage error as `error: <message>` and the pointer to
    /// the help (issue 17: one line, not 30 lines of help); a runtime error as ``runtime(_:)``.
    package static func text(_ error: CLIError, help: HelpPointer) -> String {
        switch (error, help) {
        case (.usage(let message), .tool): "error: \(message)\nsee 'firestore-feed help'"
        case (.usage(let message), .command(let command)):
            "error: \(message)\nsee 'firestore-feed help \(command)'"
        case (.usage(let message), .text(let text)): "error: \(message)\n\n" + text
        case (.runtime(let error), _): runtime(error)
        }
    }

    /// `error: <code>: <message>`, the message on one line (``oneLine(_:)``), then what the connection adds on a
    /// line of its own (``ConnectionContext/hint(for:in:)``: the project asked for a `not-found`, how to start the
    /// emulator for a refused connection to it).
    package static func runtime(_ error: FirestoreError) -> String {
        let line = "error: \(error.code.name): \(oneLine(error.message))"
        guard let hint = ConnectionContext.hint(for: error) else { return line }
        return line + "\n" + hint
    }

    /// `message` on one line: a message over several lines (the emulator's Datastore wording) has its lines
    /// trimmed and joined with spaces, blank ones dropped.
    package static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}
