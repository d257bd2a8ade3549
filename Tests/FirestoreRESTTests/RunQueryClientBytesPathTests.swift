import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The client's own REST runQuery call decodes straight from the bytes: every runQuery body recorded from the
/// emulator goes through no element's JSON tree, and an element outside the common shape goes through its tree alone,
/// with the same result (``RunQueryResponse/elementsThroughTrees``).
@Suite(.timeLimit(.minutes(2))) struct RunQueryClientBytesPathTests {
    static func runQuery(answering body: String) async throws -> RunQueryResponse {
        let transport = ScriptedTransport([.response(status: 200, body: body)])
        let db = try transport.firestore(
            credentials: NoCredentials(), retryPolicy: RetryPolicy(maxAttempts: 1, jitter: 0, clock: CountingClock()))
        return try await db.runQuery(parent: .root, structuredQuery: StructuredQuery(from: .init(collectionID: "c")))
    }

    /// The 200 runQuery bodies of the cassettes in `Recordings/`.
    static func recordedBodies() throws -> [String] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Recordings")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        var bodies: [String] = []
        for file in files.sorted() {
            let cassette = try JSONValue.parse(Data(contentsOf: folder.appendingPathComponent(file)))
            for interaction in cassette["interactions"]?.arrayValue ?? [] {
                guard interaction["request"]?["path"]?.stringValue?.hasSuffix(":runQuery") == true,
                    interaction["response"]?["status"] == .integer(200),
                    let body = interaction["response"]?["body"]?.stringValue
                else { continue }
                bodies.append(body)
            }
        }
        return bodies
    }

    @Test func everyRecordedBodyIsDecodedFromItsBytesWithTheTreesResult() async throws {
        let bodies = try Self.recordedBodies()
        var documents = 0
        for body in bodies {
            let response = try await Self.runQuery(answering: body)
            #expect(response.elementsThroughTrees == 0, "\(body.prefix(200))")
            let tree = try Firestore.decodeRunQuery(body: Data(body.utf8), bytesFirst: false)
            #expect(response.documents == tree.documents)
            #expect(response.readTime == tree.readTime)
            documents += response.documents.count
        }
        #expect(bodies.count >= 20)
        #expect(documents >= 20)
    }

    @Test func anElementOutsideTheCommonShapeAloneGoesThroughItsTree() async throws {
        let name = "projects/p/databases/(default)/documents/c/"
        let body =
            #"[{"document":{"name":""# + name + #"a","fields":{"n":{"integerValue":"1"}},"#
            + #""createTime":"2024-05-01T00:00:00Z","updateTime":"2024-05-01T00:00:00Z"},"readTime":"2024-05-01T00:00:01Z"},"#
            + #"{"document":{"name":""# + name + #"b","fields":{},"createTime":"2024-05-01T00:00:00Z","#
            + #""updateTime":"2024-05-01T00:00:00Z"},"readTime":"2024-05-01T00:00:01Z","aMemberNoDecoderKnows":1},"#
            + #"{"readTime":"2024-05-01T00:00:01Z","done":true}]"#
        let response = try await Self.runQuery(answering: body)
        #expect(response.elementsThroughTrees == 1)
        // Through the trees, each of the three elements.
        let tree = try Firestore.decodeRunQuery(body: Data(body.utf8), bytesFirst: false)
        #expect(tree.elementsThroughTrees == 3)
        #expect(tree.documents == response.documents)
        #expect(tree.readTime == response.readTime)
        #expect(response.documents.map(\.name) == [name + "a", name + "b"])
        #expect(response.documents.first?.fields == ["n": .integer(1)])
        #expect(response.readTime == (try Timestamp(seconds: 1_714_521_601, nanos: 0)))
    }
}
