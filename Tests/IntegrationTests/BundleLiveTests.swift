import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Bundles of real emulator reads, from the library and from `firestore-feed bundle`: every element's length
/// prefix counts its bytes, the metadata counts the documents and the bytes after it, the named query comes first
/// and each document carries the read time the server gave and the query that returned it.
@Suite(.timeLimit(.minutes(2))) struct BundleLiveTests {
    /// The elements of a bundle: each length prefix, checked against the bytes that follow, and its JSON.
    static func elements(_ data: Data) throws -> [JSONValue] {
        var elements: [JSONValue] = []
        var rest = Substring(decoding: data, as: UTF8.self).utf8[...]
        while !rest.isEmpty {
            let digits = rest.prefix { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
            let length = try #require(Int(String(decoding: digits, as: UTF8.self)))
            rest = rest.dropFirst(digits.count)
            let element = rest.prefix(length)
            #expect(element.count == length)
            elements.append(try JSONValue.parse(Data(element)))
            rest = rest.dropFirst(length)
        }
        return elements
    }

    @Test func aBundleOfAQueryAndADocument() async throws {
        let db = try LiveFirestore.make("bundle")
        try await db.document("fruits/apple").setData(["color": "red", "kcal": 52])
        try await db.document("fruits/cherry").setData(["color": "red", "kcal": 50])
        try await db.document("fruits/fig").setData(["color": "purple", "kcal": 74])
        let red = try await db.collection("fruits").whereField("color", isEqualTo: "red").getDocuments()
        let fig = try await db.getAll([db.document("fruits/fig")])[0]
        let bundle = db.bundle("fruits")
        try bundle.add("red-fruits", red).add(fig)
        let data = bundle.build()
        let elements = try Self.elements(data)
        #expect(elements.count == 8)  // metadata, the named query, 3 documents with their metadata
        let metadata = try #require(elements.first?["metadata"])
        #expect(metadata["totalDocuments"] == 3)
        #expect(metadata["version"] == 1)
        let firstLength = String(decoding: data.prefix { $0 >= 0x30 && $0 <= 0x39 }, as: UTF8.self)
        let rest = data.count - firstLength.count - (Int(firstLength) ?? 0)
        #expect(metadata["totalBytes"] == .string(String(rest)))
        #expect(elements[1]["namedQuery"]?["name"] == "red-fruits")
        #expect(elements[1]["namedQuery"]?["bundledQuery"]?["limitType"] == "FIRST")
        let names = elements.compactMap { $0["documentMetadata"]?["name"]?.stringValue }
        let root = db.database.documentsRoot
        #expect(names == ["\(root)/fruits/apple", "\(root)/fruits/cherry", "\(root)/fruits/fig"])
        #expect(elements[2]["documentMetadata"]?["queries"] == ["red-fruits"])
        #expect(elements[6]["documentMetadata"]?["queries"] == nil)
        let readTime = try #require(red.readTime)
        let seconds: JSONValue = .string(String(readTime.seconds))
        let nanos: JSONValue = .integer(Int64(readTime.nanos))
        let expectedTime: JSONValue = .object(["seconds": seconds, "nanos": nanos])
        #expect(elements[2]["documentMetadata"]?["readTime"] == expectedTime)
        #expect(elements[3]["document"]?["fields"]?["kcal"] == ["integerValue": "52"])
    }

    @Test func theCommandWritesTheSameBundleAsTheLibrary() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-bundle")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("fruits/apple").setData(["color": "red"])
        try await db.document("fruits/fig").setData(["color": "purple"])
        let connection = ["--emulator", host, "--project", project]
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("bundle-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        let written = try await CLIProcess.run(
            [
                "bundle", "daily", "fruits", "--where", #"color == "red""#, "--query-name", "red", "--document",
                "fruits/fig", "--output", file.path,
            ] + connection)
        #expect(written.status == 0, "\(written.stderr)")
        let data = try Data(contentsOf: file)
        #expect(
            written.stdout
                == #"{"bundle":"daily","bytes":\#(data.count),"documents":2,"output":"\#(file.path)","query":"red"}"#
                + "\n")
        let elements = try Self.elements(data)
        #expect(elements.compactMap { $0["documentMetadata"]?["name"]?.stringValue }.count == 2)
        #expect(elements[1]["namedQuery"]?["name"] == "red")

        let printed = try await CLIProcess.run(["bundle", "daily", "fruits"] + connection)
        #expect(printed.status == 0, "\(printed.stderr)")
        #expect(printed.stdout.hasPrefix(#"{"#) == false)  // starts with the length of the metadata element
        #expect(try Self.elements(Data(printed.stdout.utf8)).count == 6)

        let usage = try await CLIProcess.run(["bundle", "daily"] + connection)
        #expect(usage.status == 2)
        #expect(usage.stderr.hasPrefix("error: bundle needs a BUNDLE_ID and a COLLECTION_PATH\n"))
    }
}
