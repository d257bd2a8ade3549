import FirestoreREST
import FirestoreWire
import Foundation
import Testing

/// README.md's Swift blocks cannot drift from the code the build compiles: each block is preceded by a comment
/// naming its file under `Examples/Readme` (`<!-- Examples/Readme/WatchAQuery/main.swift -->`), the file holds the
/// block exactly, every file there belongs to a block, and every `main.swift` is an executable target of
/// `Package.swift` (`readmeSnippets`). README's release version is `FirestoreFeedPackage.version`.
/// `ReadmeSnippetsLiveTests` runs the blocks against the emulator.
@Suite(.timeLimit(.minutes(2))) struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Block: Equatable {
        let file: String?
        let text: String
    }

    /// Every ```swift block of README.md, with the file named on the line before it (if any).
    static func blocks() throws -> [Block] {
        let lines = try String(contentsOf: root.appendingPathComponent("README.md"), encoding: .utf8)
            .components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            guard lines[index] == "```swift" else {
                index += 1
                continue
            }
            let marker = index > 0 ? lines[index - 1] : ""
            var file: String?
            if marker.hasPrefix("<!-- "), marker.hasSuffix(" -->") {
                file = String(marker.dropFirst(5).dropLast(4))
            }
            var body: [String] = []
            index += 1
            while index < lines.count, lines[index] != "```" {
                body.append(lines[index])
                index += 1
            }
            blocks.append(Block(file: file, text: body.map { $0 + "\n" }.joined()))
            index += 1
        }
        return blocks
    }

    /// The files under `Examples/Readme`, relative to the repository root.
    static func snippetFiles() throws -> [String] {
        let folder = root.appendingPathComponent("Examples/Readme")
        return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().flatMap { name in
            try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(name).path).sorted()
                .map { "Examples/Readme/\(name)/\($0)" }
        }
    }

    @Test func everyBlockIsTheFileTheBuildCompiles() throws {
        let blocks = try Self.blocks()
        #expect(blocks.count == 17)
        for (number, block) in blocks.enumerated() {
            let file = try #require(block.file, "README's Swift block \(number + 1) has no file comment above it")
            let compiled = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            #expect(
                compiled == block.text,
                "README's Swift block \(number + 1) differs from \(file): copy the block over the file (or back)")
        }
        #expect(blocks.compactMap(\.file).sorted() == (try Self.snippetFiles()))
    }

    @Test func everySnippetIsAnExecutableTarget() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let list = try #require(
            manifest.components(separatedBy: "let readmeSnippets = [").dropFirst().first?
                .components(separatedBy: "]").first)
        let names = list.components(separatedBy: ",").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }.map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
        let mains = try Self.snippetFiles().filter { $0.hasSuffix("/main.swift") }.map {
            $0.components(separatedBy: "/")[2]
        }
        #expect(names.sorted() == mains.sorted())
        #expect(
            Set(try Self.snippetFiles()).subtracting(mains.map { "Examples/Readme/\($0)/main.swift" })
                == ["Examples/Readme/UseItInYourPackage/Package.swift"])
    }

    /// README's dependency line names what exists (`branch: "main"`, in the manifest block and in the text: no
    /// release is tagged), and CHANGELOG.md's first version heading is the version the package says it is.
    @Test func readmeNamesTheBranchAndTheChangelogTheVersion() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.components(separatedBy: #".package(url: "<repository URL>", branch: "main")"#).count == 3)
        #expect(!readme.contains(#".package(url: "<repository URL>", from:"#))
        let changelog = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(heading?.hasPrefix("## \(FirestoreFeedPackage.version)") == true)
    }
}
