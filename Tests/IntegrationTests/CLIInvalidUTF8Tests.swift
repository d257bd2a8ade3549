import FirestoreTestSupport
import Foundation
import Testing

/// Arguments that are not valid UTF-8 are usage errors (exit 2) naming the argument and its position; before,
/// `CommandLine.arguments` replaced the bytes with U+FFFD and `get $'c/\xc3'` requested `c/%EF%BF%BD`.
@Suite(.timeLimit(.minutes(2))) struct CLIInvalidUTF8Tests {
    struct Case: Sendable, CustomTestStringConvertible {
        let arguments: [[UInt8]]
        let stderrPrefix: String
        var testDescription: String { stderrPrefix.split(separator: "\n").first.map(String.init) ?? "" }
    }

    static let cases: [Case] = [
        Case(
            arguments: [Array("get".utf8), [0x63, 0x2F, 0xC3], Array("--emulator".utf8), Array("127.0.0.1:1".utf8)],
            stderrPrefix: #"error: argument 2 is not valid UTF-8: "c/\xC3""# + "\nsee 'firestore-feed help get'\n"
        ),
        Case(
            arguments: [
                Array("query".utf8), Array("c".utf8), Array("--where".utf8), Array(#"name == ""#.utf8) + [0xFF, 0x22],
                Array("--dry-run".utf8),
            ],
            stderrPrefix: #"error: argument 4 is not valid UTF-8: "name == \"\xFF\"""#
                + "\nsee 'firestore-feed help query'\n"
        ),
        Case(
            arguments: [[0x67, 0xE2, 0x82, 0x65, 0x74]],
            stderrPrefix: #"error: argument 1 is not valid UTF-8: "g\xE2\x82et""# + "\nsee 'firestore-feed help'\n"
        ),
    ]

    @Test(arguments: cases)
    func anInvalidArgumentIsAUsageError(_ example: Case) async throws {
        let child = try SpawnedProcess(example.arguments)
        let stdout = await child.readToEnd()
        #expect(await child.exit(timeout: 60) == .exited(2))
        #expect(stdout == "")
        let stderr = String(decoding: await child.stderr?.all() ?? Data(), as: UTF8.self)
        #expect(stderr == example.stderrPrefix, "\(stderr)")
    }
}
