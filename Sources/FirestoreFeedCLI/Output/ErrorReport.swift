import FirestoreREST
import Foundation

/// The lines the tool prints on stderr when it stops with an error.
package enum ErrorReport {
    /// `error: <code>: <message>`, the message on one line (``oneLine(_:)``).
    package static func runtime(_ error: FirestoreError) -> String {
        "error: \(error.code.name): \(oneLine(error.message))"
    }

    /// `message` on one line: a message over several lines (the emulator's Datastore wording) has its lines
    /// trimmed and joined with spaces, blank ones dropped.
    package static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}
