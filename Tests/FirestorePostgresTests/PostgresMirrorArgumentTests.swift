import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import Foundation
import Testing

/// What the PostgreSQL mirror checks before it reaches a server: the table name, the URL's password kept out of every
/// message, and an unreachable server.
@Suite(.timeLimit(.minutes(1))) struct PostgresMirrorArgumentTests {
    @Test(arguments: [
        "", "1abc", "a-b", "a b", "Orders", "pg_x", "x\"; DROP TABLE y; --", String(repeating: "a", count: 49),
    ])
    func aTableNameThatIsNotAPlainIdentifierIsRefused(table: String) async throws {
        let error = await #expect(throws: FirestoreError.self) {
            _ = try await PostgresMirror(url: "postgresql://u:secret@127.0.0.1:1/db", table: table)
        }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message.hasPrefix("PostgreSQL mirror table \"\(table)\": not a plain lowercase identifier") == true)
    }

    /// A server that cannot be reached is `.unavailable`, and the error names it without its password.
    @Test func anUnreachableServerIsUnavailableAndItsPasswordIsNotShown() async throws {
        let error = await #expect(throws: FirestoreError.self) {
            _ = try await PostgresMirror(url: "postgresql://mirror:s3cret@127.0.0.1:1/db?connect_timeout=2")
        }
        #expect(error?.code == .unavailable)
        #expect(
            error?.message.hasPrefix("PostgreSQL postgresql://mirror:***@127.0.0.1:1/db?connect_timeout=2: ") == true)
        #expect(error?.message.contains("s3cret") == false)
    }

    @Test(arguments: [
        ("postgresql://u:pw@h:5432/db", "postgresql://u:***@h:5432/db"),
        ("postgresql://u@h/db?password=pw&sslmode=require", "postgresql://u@h/db?password=***&sslmode=require"),
        ("host=h dbname=d password=pw user=u", "host=h dbname=d password=*** user=u"),
        ("host=h password = 'p w\\'x' user=u", "host=h password = *** user=u"),
        ("postgresql:///db?host=/tmp/x", "postgresql:///db?host=/tmp/x"),
    ])
    func passwordsAreRedacted(url: String, shown: String) {
        #expect(PostgresConnection.redact(url) == shown)
    }
}
