import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `export` then `import` against the real emulator: every value type comes back exactly (issue 17), and a bad
/// line writes nothing.
@Suite(.timeLimit(.minutes(2))) struct CLIImportExportLiveTests {
    /// Every Firestore value type, with the edge values the emulator keeps (timestamps to the microsecond, as
    /// Firestore stores them).
    static func everyType(project: String) throws -> [String: FirestoreValue] {
        [
            "null": .null, "true": .boolean(true), "false": .boolean(false), "max": .integer(Int64.max),
            "min": .integer(Int64.min), "double": .double(0.1), "nan": .double(.nan), "infinity": .double(.infinity),
            "minusInfinity": .double(-.infinity),
            "timestamp": .timestamp(try Timestamp(rfc3339: "2024-02-29T23:59:59.123456Z")),
            "string": .string("é\"\n😀"), "bytes": .bytes(Data([0, 1, 2, 254, 255])),
            "reference": .reference("projects/\(project)/databases/(default)/documents/fruits/apple"),
            "geoPoint": .geoPoint(GeoPoint(latitude: -33.86, longitude: 151.21)),
            "array": [1, "a", 2.5, ["inMap": true]], "map": ["nested": ["deeper": 1.5], "empty": [:]],
            "vector": ["__type__": "__vector__", "value": [1.0, -2.5, 0.125]], "emptyArray": [],
        ]
    }

    static func temporaryFile(_ label: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("cli-\(label)-\(UUID().uuidString).jsonl")
    }

    @Test func exportThenImportRoundTripsEveryValueType() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-export")
        let db = try Firestore.emulator(host: host, projectID: project)
        let fields = try Self.everyType(project: project)
        try await db.document("source/every").setData([String: FieldValue](fields))
        try await db.document("source/plain").setData(["name": "Apple"])
        let connection = ["--emulator", host, "--project", project]

        let exported = try await CLIProcess.run(["export", "source", "--order-by", "__name__"] + connection)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(exported.lines.count == 2)
        #expect(
            try exported.lines.map(CLILiveTests.stable).last
                == JSONValue.parse(
                    #"{"fields":{"name":{"stringValue":"Apple"}},"id":"plain","path":"source/plain"}"#))
        let first = try JSONValue.parse(try #require(exported.lines.first))
        #expect(first["fields"]?["nan"] == ["doubleValue": "NaN"])
        #expect(first["fields"]?["max"] == ["integerValue": "9223372036854775807"])
        #expect(first["fields"]?["bytes"] == ["bytesValue": "AAEC/v8="])
        #expect(first["fields"]?["timestamp"] == ["timestampValue": "2024-02-29T23:59:59.123456Z"])

        let file = Self.temporaryFile("export")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(exported.stdout.utf8).write(to: file)
        let imported = try await CLIProcess.run(["import", "copy", file.path] + connection)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == #"{"collection":"copy","commits":1,"documents":2}"# + "\n")

        // The copy holds the very same values, read back through the library...
        #expect(try await db.document("copy/every").getDocument().data() == fields)
        #expect(try await db.document("copy/plain").getDocument().data() == ["name": "Apple"])
        // ...and exports to the same lines (times aside), so export | import | export is a fixed point.
        let again = try await CLIProcess.run(["export", "copy", "--order-by", "__name__"] + connection)
        func fieldsOnly(_ line: String) throws -> JSONValue? { try JSONValue.parse(line)["fields"] }
        #expect(try again.lines.map(fieldsOnly) == exported.lines.map(fieldsOnly))
    }

    @Test func aBadLineWritesNothingAndNamesItsPlace() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-import-bad")
        let db = try Firestore.emulator(host: host, projectID: project)
        let file = Self.temporaryFile("import-bad")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(
            """
            {"id":"a","data":{"n":1}}

            {"id":"b","fields":{"t":{"timestampValue":"yesterday"}}}
            """.utf8
        ).write(to: file)
        let result = try await CLIProcess.run(["import", "c", file.path, "--emulator", host, "--project", project])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "error: invalid-argument: \(file.path):3: fields.t: invalid RFC 3339 timestamp \"yesterday\" at "
                + "byte 0: expected a digit\n")
        #expect(try await db.collection("c").listDocuments().isEmpty)

        let missing = try await CLIProcess.run([
            "import", "c", "/nonexistent.jsonl", "--emulator", host, "--project", project,
        ])
        #expect(missing.status == 1)
        #expect(missing.stderr == "error: not-found: no file at /nonexistent.jsonl\n")
    }

    /// A line one byte over the 32 MiB maximum is refused, naming its line, and nothing is written: the lines
    /// before it are checked as usual but not committed, as for any bad line.
    @Test func aLineOverTheMaximumWritesNothing() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-import-long")
        let db = try Firestore.emulator(host: host, projectID: project)
        let file = Self.temporaryFile("import-long")
        defer { try? FileManager.default.removeItem(at: file) }
        let opening = #"{"id":"big","data":{"s":""#
        let closing = #""}}"#
        let filler = 33_554_432 + 1 - opening.utf8.count - closing.utf8.count
        var contents = Data((#"{"id":"a","data":{"n":1}}"# + "\n").utf8)
        contents.append(contentsOf: opening.utf8)
        contents.append(Data(repeating: UInt8(ascii: "x"), count: filler))
        contents.append(contentsOf: closing.utf8)
        contents.append(contentsOf: "\n".utf8)
        try contents.write(to: file)
        let result = try await CLIProcess.run(["import", "c", file.path, "--emulator", host, "--project", project])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "error: invalid-argument: \(file.path):2: the line is longer than 33554432 bytes, the most import "
                + "takes for one document\n")
        #expect(try await db.collection("c").listDocuments().isEmpty)
    }

    /// A line whose "id" holds a NUL (`\u0000` in its JSON) is refused before anything is written, the NUL
    /// written out in the message.
    @Test func aDocumentIDWithANulWritesNothing() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-import-nul")
        let db = try Firestore.emulator(host: host, projectID: project)
        let file = Self.temporaryFile("import-nul")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data((#"{"id":"a","data":{"n":1}}"# + "\n" + #"{"id":"a\u0000b","data":{"n":2}}"# + "\n").utf8)
            .write(to: file)
        let result = try await CLIProcess.run(["import", "c", file.path, "--emulator", host, "--project", project])
        #expect(result.status == 1)
        #expect(result.stdout == "")
        #expect(
            result.stderr
                == "error: invalid-argument: \(file.path):2: "
                + #"invalid ID "a\u{0}b" at position 1 of path "c/a\u{0}b": an ID cannot contain NUL (U+0000)"#
                + "\n")
        #expect(try await db.collection("c").listDocuments().isEmpty)
    }

    /// A document another client named with a NUL (the emulator takes one; the library refuses it only in IDs
    /// the caller gives) is still listed, exported and deleted with what lies below it; importing its line is
    /// refused, naming the line.
    @Test func aDocumentNamedWithANulByAnotherClientIsExportedAndDeleted() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-export-nul")
        let db = try Firestore.emulator(host: host, projectID: project)
        _ = try await db.rawRequest(
            "POST", "\(db.database.documentsRoot)/c", queryItems: [("documentId", "a\u{0}b")],
            body: ["fields": ["n": ["integerValue": "1"]]])
        _ = try await db.rawRequest(
            "POST", "\(db.database.documentsRoot)/c/a%00b/s%00", queryItems: [("documentId", "x")], body: [:])
        let connection = ["--emulator", host, "--project", project]

        let exported = try await CLIProcess.run(["export", "c"] + connection)
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(
            try exported.lines.map(CLILiveTests.stable)
                == [JSONValue.parse(#"{"fields":{"n":{"integerValue":"1"}},"id":"a\u0000b","path":"c/a\u0000b"}"#)])

        let file = Self.temporaryFile("export-nul")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(exported.stdout.utf8).write(to: file)
        let imported = try await CLIProcess.run(["import", "copy", file.path] + connection)
        #expect(imported.status == 1)
        #expect(
            imported.stderr
                == "error: invalid-argument: \(file.path):1: "
                + #"invalid ID "a\u{0}b" at position 1 of path "copy/a\u{0}b": an ID cannot contain NUL (U+0000)"#
                + "\n")

        #expect(try await db.collection("c").listDocuments().map(\.documentID) == ["a\u{0}b"])
        // The recursive delete lists the subcollection "s\u{0}" below the document and deletes through both
        // names the server gave.
        let deleted = try await CLIProcess.run(["delete", "c", "--recursive"] + connection)
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout == #"{"deleted":2,"path":"c"}"# + "\n")
        #expect(try await db.collection("c").listDocuments().isEmpty)
    }

    /// `-` reads standard input: plain `data` lines, one without an `id` (an automatic one).
    @Test func importReadsStandardInput() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-import-stdin")
        let db = try Firestore.emulator(host: host, projectID: project)
        let input = Self.temporaryFile("stdin")
        defer { try? FileManager.default.removeItem(at: input) }
        try Data("{\"id\":\"apple\",\"data\":{\"kcal\":52}}\r\n{\"data\":{\"kcal\":74}}\n".utf8).write(to: input)
        let process = Process()
        process.executableURL = CLIProcess.executable
        process.arguments = ["import", "fruits", "-", "--emulator", host, "--project", project]
        process.standardInput = try FileHandle(forReadingFrom: input)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let stdout = await CLIProcess.readToEnd(output.fileHandleForReading)
        #expect(await process.exitStatus(timeout: 60) == 0)
        #expect(String(decoding: stdout, as: UTF8.self) == #"{"collection":"fruits","commits":1,"documents":2}"# + "\n")
        let documents = try await db.collection("fruits").listDocuments()
        #expect(documents.count == 2)
        #expect(try await db.document("fruits/apple").getDocument().data() == ["kcal": 52])
        #expect(documents.contains { $0.documentID != "apple" && $0.data() == ["kcal": 74] })
    }
}
