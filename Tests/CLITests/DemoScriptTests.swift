import FirestoreFeedCLI
import Foundation
import Testing

/// `Scripts/demo` refuses a mistyped option before it installs, builds or starts anything, from its own list of the
/// demo command's options: the list must be the command's.
@Suite(.timeLimit(.minutes(2))) struct DemoScriptTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The words of `DEMO_OPTIONS=(...)` in Scripts/demo.
    static func scriptOptions() throws -> [String] {
        let script = try String(contentsOf: root.appendingPathComponent("Scripts/demo"), encoding: .utf8)
        let start = try #require(script.range(of: "DEMO_OPTIONS=("))
        let end = try #require(script[start.upperBound...].firstIndex(of: ")"))
        return script[start.upperBound..<end].split(whereSeparator: \.isWhitespace).map(String.init)
    }

    @Test func theScriptKnowsExactlyTheDemoCommandsOptions() throws {
        #expect(try Set(Self.scriptOptions()) == Set(DemoCommand.spec.declaredOptions.map(\.name)))
    }
}
