import Foundation

/// An environment variable through which `Scripts/test` hands the tests a server it started (PostgreSQL's URL, the
/// Pub/Sub emulator's host): its value, whether the tests that need it run (with a value, or under CI, where a
/// missing value fails them instead of skipping them), and the error a test throws without it.
package struct TestServerVariable: Sendable {
    /// The variable's name.
    package let name: String
    /// How to set it by hand, for the error message (say, `$(Scripts/postgres start)`).
    package let howToSet: String
    /// What starts the server, for the messages (say, `PostgreSQL`).
    package let server: String

    /// The error thrown by ``require()`` when the variable is unset.
    package struct Missing: Error, CustomStringConvertible, LocalizedError {
        package let description: String
        package var errorDescription: String? { description }
    }

    /// The value, trimmed; nil when the variable is unset or blank.
    package var value: String? {
        let value = (ProcessInfo.processInfo.environment[name] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// Whether this is a CI run (`CI` set, not empty and not `false`).
    package static var isCI: Bool {
        let value = ProcessInfo.processInfo.environment["CI"] ?? ""
        return !value.isEmpty && value != "false"
    }

    /// Whether the tests that need the server run: with a value, or under CI (where a missing value fails them).
    package var enabled: Bool { value != nil || Self.isCI }

    /// Why those tests were skipped.
    package var skipMessage: String {
        "\(name) is not set (run the tests through Scripts/test, which starts \(server))"
    }

    /// The value; throws ``Missing`` (which fails the calling test) when unset.
    package func require() throws -> String {
        guard let value else {
            throw Missing(
                description: "\(name) is not set: run the tests through Scripts/test, which starts \(server) "
                    + "(or export \(name)=\(howToSet))")
        }
        return value
    }
}
