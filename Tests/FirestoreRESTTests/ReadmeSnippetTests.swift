import FirestoreREST
import FirestoreWire
import Foundation
import Testing

/// The Swift blocks of README.md and of the DocC articles (every `Sources/*/*.docc/*.md`) cannot drift from the code
/// the build compiles: each block is preceded by a comment naming its file under `Examples/Readme`
/// (`<!-- Examples/Readme/WatchAQuery/main.swift -->`), the file holds the block exactly, every file there belongs to a
/// block, and every `main.swift` is an executable target of `Package.swift` (`readmeSnippets`).
///
/// One mapping, of whole import lines only: a block written against swift-log or swift-service-lifecycle (which this
/// package cannot depend on) compiles against the shapes of their APIs in `Examples/Shims`, so its file has
/// `import LoggingShape` where the block has `import Logging`, and `import ServiceLifecycleShape` where it has
/// `import ServiceLifecycle` (and `VaporShape`, `HummingbirdShape` for `Vapor`, `Hummingbird`); every other line is the
/// same. README's release version is `FirestoreFeedPackage.version`.
/// `ReadmeSnippetsLiveTests` runs the blocks against the emulator.
@Suite(.timeLimit(.minutes(2))) struct ReadmeSnippetTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    struct Block: Equatable {
        /// The document it is in, relative to the repository root.
        let document: String
        let file: String?
        let text: String
    }

    /// The compiled file's import lines that its block writes otherwise (the shims of `Examples/Shims`).
    static let shimImports = [
        "import LoggingShape": "import Logging", "import ServiceLifecycleShape": "import ServiceLifecycle",
        "import VaporShape": "import Vapor", "import HummingbirdShape": "import Hummingbird",
    ]

    /// A compiled file as its block writes it: the shims' import lines mapped back, nothing else changed.
    static func asWritten(_ compiled: String) -> String {
        compiled.components(separatedBy: "\n").map { shimImports[$0] ?? $0 }.joined(separator: "\n")
    }

    /// README.md, then the DocC articles of every catalog (`Sources/<Module>/<Module>.docc/*.md`), sorted.
    static func documents() throws -> [String] {
        let sources = root.appendingPathComponent("Sources")
        var articles: [String] = []
        for module in try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted() {
            let modulePath = sources.appendingPathComponent(module).path
            for catalog in try FileManager.default.contentsOfDirectory(atPath: modulePath).sorted()
            where catalog.hasSuffix(".docc") {
                let folder = "Sources/\(module)/\(catalog)"
                articles += try FileManager.default.contentsOfDirectory(
                    atPath: root.appendingPathComponent(folder).path
                ).sorted().filter { $0.hasSuffix(".md") }.map { "\(folder)/\($0)" }
            }
        }
        return ["README.md"] + articles
    }

    /// Every ```swift block of `document`, with the file named on the line before it (if any).
    static func blocks(in document: String) throws -> [Block] {
        let lines = try String(contentsOf: root.appendingPathComponent(document), encoding: .utf8)
            .components(separatedBy: "\n")
        var blocks: [Block] = []
        var index = 0
        while index < lines.count {
            guard lines[index].hasPrefix("```swift") else {
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
            blocks.append(Block(document: document, file: file, text: body.map { $0 + "\n" }.joined()))
            index += 1
        }
        return blocks
    }

    /// Every block of every document.
    static func blocks() throws -> [Block] {
        try documents().flatMap { try blocks(in: $0) }
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
        #expect(blocks.filter { $0.document == "README.md" }.count == 3)
        #expect(blocks.filter { $0.document != "README.md" }.count == 22)
        #expect(blocks.count == 25)
        for block in blocks {
            let file = try #require(block.file, "a Swift block of \(block.document) has no file comment above it")
            let compiled = try String(contentsOf: Self.root.appendingPathComponent(file), encoding: .utf8)
            #expect(
                Self.asWritten(compiled) == block.text,
                "\(block.document)'s block of \(file) differs from the file: copy the block over the file (or back)")
        }
        #expect(blocks.compactMap(\.file).sorted() == (try Self.snippetFiles()))
    }

    /// The import mapping touches whole import lines and nothing else.
    @Test func onlyTheShimsImportLinesAreMapped() {
        #expect(
            Self.asWritten("import LoggingShape\nimport ServiceLifecycleShape\n")
                == "import Logging\nimport ServiceLifecycle\n")
        #expect(
            Self.asWritten("import LoggingShape // x\nlet a = LoggingShape.self\n")
                == "import LoggingShape // x\nlet a = LoggingShape.self\n")
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

    /// README's dependency line names what exists (`branch: "main"`, in the first screen and in the manifest block:
    /// no release is tagged), and CHANGELOG.md's first version heading is the version the package says it is.
    @Test func readmeNamesTheBranchAndTheChangelogTheVersion() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        #expect(readme.components(separatedBy: #".package(url: "<repository URL>", branch: "main")"#).count == 3)
        #expect(!readme.contains(#".package(url: "<repository URL>", from:"#))
        let changelog = try String(contentsOf: Self.root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        let heading = changelog.split(separator: "\n").first { $0.hasPrefix("## ") }
        #expect(heading?.hasPrefix("## \(FirestoreFeedPackage.version)") == true)
    }

    /// README's first screen, before its contents list, says what a newcomer needs: the two commands, the dependency
    /// and product lines, the four Debian packages, and one example with one import.
    @Test func readmesFirstScreenHasTheEssentials() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let first = try #require(readme.components(separatedBy: "\n## Contents\n").first)
        #expect(first != readme, "README has no `## Contents` heading")
        for essential in [
            "Scripts/demo", "Scripts/test", #".package(url: "<repository URL>", branch: "main")"#,
            #".product(name: "FirestoreFeed", package: "firestore-feed")"#, "libcurl4-openssl-dev", "libssl-dev",
            "libnghttp2-dev", "libsqlite3-dev", "no release is tagged",
        ] {
            #expect(first.contains(essential), "README's first screen does not say \(essential)")
        }
        let example = try Self.blocks(in: "README.md").first
        #expect(example.map { first.contains($0.text) } == true)
        #expect(
            example?.text.components(separatedBy: "\n").filter { $0.hasPrefix("import ") } == ["import FirestoreFeed"])
    }

    /// Every relative link of README.md and CONTRIBUTING.md names a file of the repository (the articles included).
    @Test func readmesLinksNameFilesThatExist() throws {
        for document in ["README.md", "CONTRIBUTING.md"] {
            let text = try String(contentsOf: Self.root.appendingPathComponent(document), encoding: .utf8)
            for part in text.components(separatedBy: "](").dropFirst() {
                guard let target = part.components(separatedBy: ")").first, !target.contains("://"),
                    !target.hasPrefix("#")
                else { continue }
                let path = target.components(separatedBy: "#")[0]
                #expect(
                    FileManager.default.fileExists(atPath: Self.root.appendingPathComponent(path).path),
                    "\(document) links to \(target), which does not exist")
            }
        }
    }
}
