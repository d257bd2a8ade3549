import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// `firestore-feed demo` deletes the documents of the collection it seeds: by default one of its own
/// (`firestore-feed-demo`), so a `fruits` collection of the user's is left alone (issue 17).
@Suite(.timeLimit(.minutes(2))) struct DemoCollectionLiveTests {
    @Test func theDemoSeedsACollectionOfItsOwn() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("demo-own")
        let db = try Firestore.emulator(host: host, projectID: project)
        try await db.document("fruits/mine").setData(["name": "Mine"])
        let result = try await CLIProcess.run([
            "demo", "--emulator", host, "--project", project, "--format", "jsonl", "--interval", "0.05",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("watching: firestore-feed-demo where isFavourite == true, ordered by name\n"))
        #expect(result.lines.count == 6)
        let first = try JSONValue.parse(try #require(result.lines.first))
        #expect(
            first["changes"]?.arrayValue?.compactMap { $0["path"]?.stringValue } == [
                "firestore-feed-demo/apple", "firestore-feed-demo/banana", "firestore-feed-demo/date",
            ])
        #expect(try await db.document("fruits/mine").getDocument().data() == ["name": "Mine"])
        #expect(
            try await db.collection("firestore-feed-demo").listDocuments().map(\.documentID) == [
                "apple", "banana", "cherry", "date",
            ])
    }
}
