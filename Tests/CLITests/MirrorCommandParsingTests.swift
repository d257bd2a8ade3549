import FirestoreFeedCLI
import Testing

/// `firestore-feed mirror`'s command line, parsed and validated: no process, no network.
@Suite(.timeLimit(.minutes(1))) struct MirrorCommandParsingTests {
    static func usageMessage(_ arguments: [String]) -> String? {
        do {
            _ = try MirrorCommand.parse(arguments)
            return nil
        } catch {
            guard case .usage(let message) = error else { return "not a usage error: \(error)" }
            return message
        }
    }

    @Test func aSinkIsRequired() {
        #expect(
            Self.usageMessage(["items", "--emulator", "localhost:8080"])
                == "mirror needs a sink: --sqlite FILE or --postgres URL")
        #expect(Self.usageMessage(["items", "--sqlite", ""]) == "--sqlite needs a file name")
        #expect(Self.usageMessage(["items", "--sqlite", "m.db", "--table", ""]) == "--table needs a name")
        #expect(Self.usageMessage(["items", "--sqlite", "m.db", "--emulator", "localhost:8080"]) == nil)
    }

    @Test func postgresIsTheOtherSinkAndExactlyOneIsGiven() throws {
        let url = "postgresql://mirror:s3cret@db.example/shop"
        #expect(Self.usageMessage(["items", "--postgres", url, "--emulator", "localhost:8080"]) == nil)
        #expect(Self.usageMessage(["items", "--postgres", ""]) == "--postgres needs a connection URL")
        #expect(
            Self.usageMessage(["items", "--sqlite", "m.db", "--postgres", url])
                == "mirror writes to one sink: --sqlite or --postgres, not both")
        #expect(Self.usageMessage(["items", "--postgres", url, "--table", ""]) == "--table needs a name")
        let command = try MirrorCommand.parse(
            ["items", "--postgres", url, "--table", "orders", "--emulator", "localhost:8080"])
        #expect(command.sinkDescription == "PostgreSQL postgresql://mirror:***@db.example/shop, table orders")
        #expect(!command.sinkDescription.contains("s3cret"))
        let sqlite = try MirrorCommand.parse(["items", "--sqlite", "m.db", "--emulator", "localhost:8080"])
        #expect(sqlite.sinkDescription == "SQLite file m.db, table documents")
    }

    @Test func aPostgresPasswordNeverAppearsInAConnectionError() async throws {
        // A server that is not there: the error names the URL with its password redacted.
        let command = try MirrorCommand.parse(
            [
                "items", "--postgres", "postgresql://mirror:s3cret@127.0.0.1:1/shop?connect_timeout=2",
                "--emulator", "localhost:8080",
            ])
        let error = await #expect(throws: (any Error).self) { _ = try await command.openSink() }
        let message = "\(error.map { String(describing: $0) } ?? "")"
        #expect(message.contains("mirror:***@127.0.0.1:1"), "\(message)")
        #expect(!message.contains("s3cret"), "\(message)")
    }

    @Test func thePageSizeIsAWholeNumberFromOne() {
        #expect(
            Self.usageMessage(["items", "--sqlite", "m.db", "--page-size", "10", "--emulator", "localhost"]) == nil)
        #expect(Self.usageMessage(["items", "--sqlite", "m.db", "--page-size", "0"]) != nil)
        #expect(Self.usageMessage(["items", "--sqlite", "m.db", "--page-size", "ten"]) != nil)
    }

    @Test func theBusyTimeoutIsSecondsForAnSQLiteFile() {
        #expect(
            Self.usageMessage(["items", "--sqlite", "m.db", "--busy-timeout", "60", "--emulator", "localhost"]) == nil)
        #expect(
            Self.usageMessage(["items", "--postgres", "postgresql:///shop", "--busy-timeout", "60"])
                == "--busy-timeout is an option of --sqlite")
        #expect(
            Self.usageMessage(["items", "--sqlite", "m.db", "--busy-timeout", "0"])
                == "--busy-timeout \"0\": expected seconds from 0.001 to 86400")
    }

    @Test func groupOptionsNeedAGroup() {
        #expect(
            Self.usageMessage(["items", "--sqlite", "m.db", "--shards", "4"])
                == "--shards, --member, --lease and --renew need --group NAME")
        #expect(
            Self.usageMessage(["items", "--sqlite", "m.db", "--group", "a/b"])
                == "--group \"a/b\": expected a document ID")
    }

    @Test func exactlyOneCollectionIsMirrored() {
        #expect(Self.usageMessage(["--sqlite", "m.db"]) == "mirror needs exactly one COLLECTION_PATH")
    }
}
