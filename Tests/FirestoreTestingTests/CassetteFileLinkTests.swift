import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The recorder writes a cassette and its journal (`PATH-journal`, a predictable name) without following a link
/// planted at either name: the link's target keeps its bytes (issue 24). Each test plants in a folder of its own.
@Suite(.timeLimit(.minutes(2))) struct CassetteFileLinkTests {
    /// A folder of the test's own holding a file `victim` with `precious\n`.
    static func setUp() throws -> (folder: String, victim: String) {
        let folder = NSTemporaryDirectory() + "cassette-links-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let victim = folder + "/victim"
        try Data("precious\n".utf8).write(to: URL(fileURLWithPath: victim))
        return (folder, victim)
    }

    static func contents(_ path: String) -> String? {
        FileManager.default.contents(atPath: path).map { String(decoding: $0, as: UTF8.self) }
    }

    static func get(_ transport: any HTTPTransport, _ name: String) async throws {
        _ = try await transport.send(HTTPRequest(method: "GET", url: "http://h/\(name)"))
    }

    /// Before issue 24 the journal was written through the link: the victim then held the journal's header and
    /// the interaction.
    @Test func aLinkAtTheJournalsNameIsReplacedNotWrittenThrough() async throws {
        let (folder, victim) = try Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/cassette.json"
        #expect(symlink(victim, CassetteJournal.path(for: path)) == 0)
        let server = ScriptedTransport { _, _ in HTTPResponse(status: 200, body: Data("{}".utf8)) }
        let recorder = RecordingTransport(wrapping: server, savingTo: path)
        try await Self.get(recorder, "one")  // written whole (the link is still there)
        try await Self.get(recorder, "two")  // appended through a journal
        #expect(Self.contents(victim) == "precious\n")
        #expect(!FileManager.default.fileExists(atPath: CassetteJournal.path(for: path)))
        #expect(try Cassette(contentsOfFile: path).interactions.map(\.request.path) == ["/one", "/two"])
    }

    /// A link put in the cassette's place after it was written is not written through by an append (before issue
    /// 24 the append wrote into the victim at the cassette's offset).
    @Test func anAppendDoesNotFollowALinkAtTheCassettesName() throws {
        let (folder, victim) = try Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/cassette.json"
        #expect(symlink(victim, path) == 0)
        #expect(
            throws: FirestoreError(
                code: .unavailable, message: "cannot write the cassette \(path): \(String(cString: strerror(ELOOP)))")
        ) {
            try CassetteFile.write(Data("xx".utf8), at: 2, toFile: path)
        }
        #expect(Self.contents(victim) == "precious\n")
    }

    /// A whole cassette replaces a link at its name (written to a new file, renamed into place): the victim keeps
    /// its bytes.
    @Test func aWholeCassetteReplacesALinkAtItsName() throws {
        let (folder, victim) = try Self.setUp()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/cassette.json"
        #expect(symlink(victim, path) == 0)
        try Cassette().write(toFile: path)
        #expect(Self.contents(victim) == "precious\n")
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: path)) == nil)
        #expect(try Cassette(contentsOfFile: path) == Cassette())
    }
}
