import Foundation

/// Where the PostgreSQL mirror's tests find their server.
///
/// `Scripts/test` starts a private PostgreSQL (`Scripts/postgres start`: a Unix socket in a private folder, no TCP)
/// beside the emulator and exports `FIRESTORE_FEED_TEST_POSTGRES_URL` before `swift test`; every test makes tables of
/// its own there, so runs and tests share the one server. Without the variable the tests are skipped with a message,
/// except under CI (`CI` set and not `false`), where they run and fail: a CI job must not pass without them.
package enum PostgresEnvironment {
    /// `FIRESTORE_FEED_TEST_POSTGRES_URL`, the server's connection URL.
    package static let variable = TestServerVariable(
        name: "FIRESTORE_FEED_TEST_POSTGRES_URL", howToSet: "$(Scripts/postgres start)", server: "PostgreSQL")

    /// The connection URL, or nil when the variable is unset or blank.
    package static var url: String? { variable.value }

    /// Whether this is a CI run (`CI` set, not empty and not `false`).
    package static var isCI: Bool { TestServerVariable.isCI }

    /// Whether the PostgreSQL tests run: with a URL, or under CI (where a missing URL fails them). For
    /// `.enabled(if: PostgresEnvironment.enabled, Comment(rawValue: PostgresEnvironment.skipMessage))`.
    package static var enabled: Bool { variable.enabled }

    /// Why the PostgreSQL tests were skipped.
    package static var skipMessage: String { variable.skipMessage }

    /// The connection URL; throws (which fails the calling test) when unset.
    package static func requireURL() throws -> String { try variable.require() }

    /// A fresh table name for one test: `<label>_<8 hex>`, lowercase, at most 40 characters.
    package static func uniqueTable(_ label: String) -> String {
        let cleaned = String(label.lowercased().filter { ("a"..."z").contains($0) || $0 == "_" }.prefix(30))
        let hex = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return (cleaned.isEmpty ? "t" : cleaned) + "_" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
