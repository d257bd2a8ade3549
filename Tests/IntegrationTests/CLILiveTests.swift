import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The `firestore-feed` tool against the real emulator.
@Suite(.timeLimit(.minutes(2))) struct CLILiveTests {
    /// A JSON line with its volatile members (readTime, createTime, updateTime) removed.
    static func stable(_ line: String) throws -> JSONValue {
        func strip(_ json: JSONValue) -> JSONValue {
            switch json {
            case .object(let members):
                var kept = members
                for key in ["readTime", "createTime", "updateTime"] { kept[key] = nil }
                return .object(kept.mapValues(strip))
            case .array(let elements): return .array(elements.map(strip))
            default: return json
            }
        }
        return strip(try JSONValue.parse(line))
    }

    @Test func watchPrintsTheAssertedLinesWhileWritesHappen() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-watch")
        let db = try Firestore.emulator(host: host, projectID: project)
        let fruits = db.collection("fruits")
        try await fruits.document("apple").setData(["name": "Apple", "isFavourite": true, "kcal": 52])
        try await fruits.document("banana").setData(["name": "Banana", "isFavourite": false, "kcal": 89])

        let watcher = try CLIProcess([
            "watch", "fruits", "--emulator", host, "--project", project, "--where", "isFavourite == true",
            "--order-by", "name", "--format", "jsonl", "--count", "3", "--interval", "0.05",
        ])
        // Each write waits until the watcher has printed the snapshot of the previous state.
        _ = await watcher.stdout.lines(atLeast: 1, timeout: 30)
        try await fruits.document("banana").updateData(["isFavourite": true])
        _ = await watcher.stdout.lines(atLeast: 2, timeout: 30)
        try await fruits.document("apple").delete()
        let result = await watcher.finish(timeout: 30)

        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try result.lines.map(Self.stable)
        #expect(
            lines == [
                try JSONValue.parse(
                    """
                    {"size":1,"changes":[{"type":"added","id":"apple","path":"fruits/apple","oldIndex":null,"newIndex":0,
                     "data":{"name":"Apple","isFavourite":true,"kcal":52}}]}
                    """),
                try JSONValue.parse(
                    """
                    {"size":2,"changes":[{"type":"added","id":"banana","path":"fruits/banana","oldIndex":null,"newIndex":1,
                     "data":{"name":"Banana","isFavourite":true,"kcal":89}}]}
                    """),
                try JSONValue.parse(
                    """
                    {"size":1,"changes":[{"type":"removed","id":"apple","path":"fruits/apple","oldIndex":0,"newIndex":null,
                     "data":{"name":"Apple","isFavourite":true,"kcal":52}}]}
                    """),
            ])
        #expect(result.lines.first?.contains(#""readTime":"20"#) == true)
    }

    @Test func queryPrintsOneLinePerDocument() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-query")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("n/one").setData(["v": 1, "big": .integer(Int64.max), "x": .double(.nan)])
        try await db.document("n/two").setData([
            "v": 2.5, "when": .timestamp(try Timestamp(rfc3339: "2024-01-02T03:04:05.5Z")),
        ])
        let result = try await CLIProcess.run([
            "query", "n", "--emulator", host, "--project", project, "--where", "v > 0", "--order-by", "v:desc",
        ])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(
            try result.lines.map(Self.stable) == [
                try JSONValue.parse(#"{"id":"two","path":"n/two","data":{"v":2.5,"when":"2024-01-02T03:04:05.500Z"}}"#),
                try JSONValue.parse(#"{"id":"one","path":"n/one","data":{"v":1,"big":9223372036854775807,"x":"NaN"}}"#),
            ])
        #expect(result.stdout.contains("9223372036854775807"))
    }

    @Test func getPrintsADocumentAndFailsForAMissingOne() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("cli-get")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("fruits/apple").setData(["name": "Apple"])
        let found = try await CLIProcess.run(["get", "fruits/apple", "--emulator", host, "--project", project])
        #expect(found.status == 0)
        #expect(
            try found.lines.map(Self.stable) == [
                try JSONValue.parse(#"{"id":"apple","path":"fruits/apple","data":{"name":"Apple"}}"#)
            ])
        let missing = try await CLIProcess.run(["get", "fruits/kiwi", "--emulator", host, "--project", project])
        #expect(missing.status == 1)
        #expect(missing.stdout == "")
        #expect(
            missing.stderr
                == "error: not-found: no document at fruits/kiwi\n"
                + "note: in project \"\(project)\", database (default), on the emulator at \(host)\n")
        let refused = try await CLIProcess.run([
            "get", "fruits/kiwi", "--emulator", "127.0.0.1:1", "--project", project,
        ])
        #expect(refused.status == 1)
        #expect(refused.stderr.hasPrefix("error: unavailable: "))
    }
}
