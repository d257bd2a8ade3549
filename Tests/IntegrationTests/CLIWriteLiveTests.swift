import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `set`, `update`, `create`, `add` and `delete [--recursive]` against the real emulator: one JSON line per
/// write, the expected refusals as runtime errors (exit 1), bad input as usage errors (exit 2).
@Suite(.timeLimit(.minutes(2))) struct CLIWriteLiveTests {
    /// A fresh project on the emulator, and a runner for the tool against it.
    struct Session {
        let host: String
        let project: String
        let db: Firestore

        init(_ label: String) throws {
            host = try EmulatorEnvironment.requireHost()
            project = EmulatorEnvironment.uniqueProjectID(label)
            db = try Firestore.emulator(host: host, projectID: project)
        }

        func run(_ arguments: [String]) async throws -> CLIProcess.Result {
            try await CLIProcess.run(arguments + ["--emulator", host, "--project", project])
        }
    }

    @Test func setUpdateCreateAndAddWriteWhatTheySay() async throws {
        let session = try Session("cli-writes")
        let set = try await session.run([
            "set", "fruits/apple", #"{"name":"Apple","kcal":52,"ratio":0.5,"tags":["red"],"stats":{"g":100}}"#,
        ])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(set.stderr == "")
        #expect(
            try set.lines.map(CLILiveTests.stable) == [try JSONValue.parse(#"{"id":"apple","path":"fruits/apple"}"#)])
        let written = try await session.db.document("fruits/apple").getDocument()
        #expect(
            written.data() == [
                "name": "Apple", "kcal": .integer(52), "ratio": .double(0.5), "tags": ["red"],
                "stats": ["g": .integer(100)],
            ])
        // The printed updateTime is the document's.
        #expect(set.stdout.contains(#""updateTime":"\#(written.updateTime?.rfc3339 ?? "?")""#))

        // update: dotted paths reach into maps, backticks keep a dot in a name; other fields stay.
        let update = try await session.run(["update", "fruits/apple", #"{"stats.g":120,"`a.b`":true}"#])
        #expect(update.status == 0, "\(update.stderr)")
        #expect(
            try await session.db.document("fruits/apple").getDocument().data() == [
                "name": "Apple", "kcal": .integer(52), "ratio": .double(0.5), "tags": ["red"],
                "stats": ["g": .integer(120)], "a.b": true,
            ])

        // set --merge changes only the fields given; set alone replaces the document.
        let merge = try await session.run(["set", "fruits/apple", #"{"kcal":53,"stats":{"kj":220}}"#, "--merge"])
        #expect(merge.status == 0, "\(merge.stderr)")
        #expect(
            try await session.db.document("fruits/apple").getDocument().data() == [
                "name": "Apple", "kcal": .integer(53), "ratio": .double(0.5), "tags": ["red"],
                "stats": ["g": .integer(120), "kj": .integer(220)], "a.b": true,
            ])
        let replace = try await session.run(["set", "fruits/apple", #"{"name":"Apple"}"#])
        #expect(replace.status == 0)
        #expect(try await session.db.document("fruits/apple").getDocument().data() == ["name": "Apple"])

        let create = try await session.run(["create", "fruits/fig", #"{"name":"Fig"}"#])
        #expect(create.status == 0, "\(create.stderr)")
        #expect(
            try create.lines.map(CLILiveTests.stable) == [try JSONValue.parse(#"{"id":"fig","path":"fruits/fig"}"#)])

        let add = try await session.run(["add", "fruits/fig/reviews", #"{"stars":5}"#])
        #expect(add.status == 0, "\(add.stderr)")
        let line = try JSONValue.parse(try #require(add.lines.first))
        let id = try #require(line["id"]?.stringValue)
        #expect(id.count == 20 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(line["path"] == .string("fruits/fig/reviews/\(id)"))
        #expect(try await session.db.document("fruits/fig/reviews/\(id)").getDocument().data() == ["stars": 5])
    }

    @Test func refusalsAreRuntimeErrorsInTheCommandsWords() async throws {
        let session = try Session("cli-refusals")
        try await session.db.document("fruits/apple").setData(["name": "Apple"])
        let exists = try await session.run(["create", "fruits/apple", "{}"])
        #expect(exists.status == 1)
        #expect(exists.stdout == "")
        #expect(
            exists.stderr.hasPrefix(
                "error: already-exists: fruits/apple already exists (set replaces it); the server said: "))
        #expect(exists.stderr.split(separator: "\n").count == 1)
        let missing = try await session.run(["update", "fruits/kiwi", #"{"name":"Kiwi"}"#])
        #expect(missing.status == 1)
        #expect(
            missing.stderr.hasPrefix(
                "error: not-found: no document at fruits/kiwi to update (set creates one); the server said: "))
        // The emulator's message spans lines; the CLI prints one, then the project it asked.
        let lines = missing.stderr.split(separator: "\n")
        #expect(lines.count == 2, "\(missing.stderr)")
        #expect(
            lines.last
                == "note: in project \"\(session.project)\", database (default), on the emulator at \(session.host)")
        #expect(try await session.db.document("fruits/kiwi").getDocument().exists == false)
        #expect(try await session.db.document("fruits/apple").getDocument().data() == ["name": "Apple"])
    }

    @Test(arguments: [
        (["set", "fruits/apple"], "error: set needs DOCUMENT_PATH and JSON, e.g. '{\"name\":\"Apple\"}'"),
        (["set", "fruits", "{}"], "error: \"fruits\" is not a document path (it needs an even number of segments)"),
        (
            ["add", "fruits/apple", "{}"],
            "error: \"fruits/apple\" is not a collection path (it needs an odd number of segments)"
        ),
        (
            ["set", "fruits/apple", "[1]"],
            #"error: set fruits/apple: expected a JSON object of fields, e.g. '{"name":"Apple"}'"#
        ),
        (
            ["update", "fruits/apple", #"{"n":18446744073709551616}"#],
            "error: update fruits/apple: the integer 18446744073709551616 does not fit in 64 bits"
        ),
        (["update", "fruits/apple", #"{"a..b":1}"#], #"error: update fruits/apple: key "a..b": "#),
        (["update", "fruits/apple", "{}"], "error: update fruits/apple: JSON names no field to update"),
        (["create", "fruits/apple", #"{"__id__":1}"#], #"error: field name "__id__" is reserved"#),
        (["set", "fruits/apple", #"{"a":[[1]]}"#], "error: an array cannot directly hold an array (field a)"),
        (
            ["delete", "fruits"],
            "error: \"fruits\" is a collection: deleting it and everything below it needs --recursive"
        ),
        (["delete"], "error: delete needs exactly one PATH"),
        (["import", "fruits"], "error: import needs COLLECTION_PATH and FILE (JSON lines; - for standard input)"),
        (["import", "fruits/apple", "x.jsonl"], "error: \"fruits/apple\" is not a collection path"),
        (["set", "fruits/apple", "{}", "--server-timestamp", "a..b"], #"error: --server-timestamp "a..b": "#),
        (["add", "fruits", "{}", "--server-timestamp", ""], "error: --server-timestamp needs a field path"),
    ])
    func badInputIsAUsageErrorAndSendsNothing(arguments: [String], message: String) async throws {
        // 127.0.0.1:1 refuses connections: a usage error must come before any request.
        let result = try await CLIProcess.run(arguments + ["--emulator", "127.0.0.1:1", "--project", "demo-p"])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stdout == "")
        #expect(result.stderr.hasPrefix(message), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("\nsee 'firestore-feed help \(arguments[0])'\n"), "\(result.stderr)")
    }

    /// `--server-timestamp FIELD` stamps every write with the server's time (so `watch --mode delta` sees writes
    /// made with the CLI: a new user's update without it was never seen by a delta watch).
    @Test func serverTimestampStampsEveryWrite() async throws {
        let session = try Session("cli-stamp")
        let before = Timestamp.now()
        for arguments in [
            ["set", "fruits/apple", #"{"name":"Apple"}"#], ["update", "fruits/apple", #"{"kcal":52}"#],
            ["create", "fruits/fig", #"{"name":"Fig"}"#],
        ] {
            let result = try await session.run(arguments + ["--server-timestamp", "meta.updatedAt"])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
        for id in ["apple", "fig"] {
            let document = try await session.db.document("fruits/\(id)").getDocument()
            guard case .timestamp(let stamped)? = document.get("meta.updatedAt") else {
                Issue.record("fruits/\(id): meta.updatedAt is \(String(describing: document.get("meta.updatedAt")))")
                continue
            }
            #expect(stamped.seconds >= before.seconds - 5)
        }
        #expect(try await session.db.document("fruits/apple").getDocument().get("kcal") == .integer(52))
        let plain = try await session.run(["set", "fruits/kiwi", #"{"name":"Kiwi"}"#])
        #expect(plain.status == 0, "\(plain.stderr)")
        #expect(try await session.db.document("fruits/kiwi").getDocument().data() == ["name": "Kiwi"])
    }

    @Test func deleteOneDocumentLeavesItsSubcollections() async throws {
        let session = try Session("cli-delete-one")
        try await session.db.document("fruits/apple").setData(["name": "Apple"])
        try await session.db.document("fruits/apple/reviews/r1").setData(["stars": 4])
        let result = try await session.run(["delete", "fruits/apple"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try JSONValue.parse(try #require(result.lines.first))
        #expect(line["id"] == "apple")
        #expect(line["path"] == "fruits/apple")
        #expect(line["commitTime"]?.stringValue?.hasPrefix("20") == true)
        #expect(try await session.db.document("fruits/apple").getDocument().exists == false)
        #expect(try await session.db.document("fruits/apple/reviews/r1").getDocument().exists)
        // Deleting a missing document succeeds, as in the SDKs.
        #expect(try await session.run(["delete", "fruits/nothing"]).status == 0)
    }

    /// `--recursive` on a collection and on a document: every document at or below it, below a missing parent
    /// (`fruits/ghost`, which only has a subcollection) too, and nothing beside it. The count is of the documents
    /// deleted: the missing parent is not one (2: `fruits/fig` and `fruits/ghost/reviews/r2`).
    @Test func recursiveDeleteRemovesTheWholeTreeAndNothingElse() async throws {
        let session = try Session("cli-delete-tree")
        let db = session.db
        for path in [
            "fruits/apple", "fruits/apple/reviews/r1", "fruits/apple/reviews/r1/replies/x",
            "fruits/ghost/reviews/r2", "fruits/fig", "other/keep", "fruits-archive/keep",
        ] {
            try await db.document(path).setData(["p": .string(path)])
        }
        let document = try await session.run(["delete", "fruits/apple", "--recursive"])
        #expect(document.status == 0, "\(document.stderr)")
        #expect(document.stdout == #"{"deleted":3,"path":"fruits/apple"}"# + "\n")
        #expect(try await db.document("fruits/apple/reviews/r1/replies/x").getDocument().exists == false)
        #expect(try await db.document("fruits/fig").getDocument().exists)

        let collection = try await session.run(["delete", "fruits", "--recursive"])
        #expect(collection.status == 0, "\(collection.stderr)")
        #expect(collection.stdout == #"{"deleted":2,"path":"fruits"}"# + "\n")
        #expect(try await db.collection("fruits").listDocuments().isEmpty)
        #expect(try await db.document("fruits/ghost").listCollectionIds() == [])
        #expect(try await db.listCollectionIds() == ["fruits-archive", "other"])
        #expect(
            try await session.run(["delete", "fruits", "--recursive"]).stdout == #"{"deleted":0,"path":"fruits"}"#
                + "\n")
    }

    /// More documents than one commit takes (500): an import of 1,100 lines in three commits, then a recursive
    /// delete of them all (through a BulkWriter, pages of 300 listed).
    @Test func importAndRecursiveDeleteGoInCommitsOfFiveHundred() async throws {
        let session = try Session("cli-batches")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent(
            "cli-batches-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: file) }
        let lines = (0..<1_100).map { #"{"id":"d\#(String(format: "%04d", $0))","data":{"n":\#($0)}}"# }
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
        let imported = try await session.run(["import", "numbers", file.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(imported.stdout == #"{"collection":"numbers","commits":3,"documents":1100}"# + "\n")
        #expect(try await session.db.collection("numbers").count.getAggregation().count == 1_100)
        #expect(try await session.db.document("numbers/d1099").getDocument().data() == ["n": 1_099])
        let deleted = try await session.run(["delete", "numbers", "--recursive"])
        #expect(deleted.stdout == #"{"deleted":1100,"path":"numbers"}"# + "\n", "\(deleted.stderr)")
        #expect(try await session.db.collection("numbers").count.getAggregation().count == 0)
    }
}
