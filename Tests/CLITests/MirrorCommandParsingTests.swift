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
        #expect(Self.usageMessage(["items", "--emulator", "localhost:8080"]) == "mirror needs a sink: --sqlite FILE")
        #expect(Self.usageMessage(["items", "--sqlite", ""]) == "--sqlite needs a file name")
        #expect(Self.usageMessage(["items", "--sqlite", "m.db", "--table", ""]) == "--table needs a name")
        #expect(Self.usageMessage(["items", "--sqlite", "m.db", "--emulator", "localhost:8080"]) == nil)
    }

    @Test func thePageSizeIsAWholeNumberFromOne() {
        #expect(
            Self.usageMessage(["items", "--sqlite", "m.db", "--page-size", "10", "--emulator", "localhost"]) == nil)
        #expect(Self.usageMessage(["items", "--sqlite", "m.db", "--page-size", "0"]) != nil)
        #expect(Self.usageMessage(["items", "--sqlite", "m.db", "--page-size", "ten"]) != nil)
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
