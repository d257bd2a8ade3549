import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The read options of the server SDKs, as requests on a scripted transport: field masks and read times on
/// document reads (batchGet), `getAll`, queries at a read time, and the options and page forms of
/// `listDocuments` and `listCollectionIds` (REST reference: `projects.databases.documents.batchGet`, `.list`,
/// `.listCollectionIds`, `.runQuery`).
@Suite(.timeLimit(.minutes(2))) struct ReadOptionsTests {
    static let root = "projects/p/databases/(default)/documents"

    static func found(_ id: String, _ fields: String = #"{"name":{"stringValue":"N"}}"#) -> String {
        #"{"found":{"name":"\#(root)/\#(id)","fields":\#(fields),"createTime":"2024-01-01T00:00:00Z","updateTime":"2024-01-01T00:00:00Z"},"readTime":"2024-05-01T00:00:00Z"}"#
    }

    static func missing(_ id: String) -> String {
        #"{"missing":"\#(root)/\#(id)","readTime":"2024-05-01T00:00:00Z"}"#
    }

    static func answering(_ body: String) -> ScriptedTransport {
        ScriptedTransport { _, _ in HTTPResponse(status: 200, body: Data(body.utf8)) }
    }

    @Test func getDocumentWithoutOptionsIsAGet() async throws {
        let transport = ScriptedTransport { _, _ in
            .ok(["name": .string("\(Self.root)/c/a"), "createTime": "2024-01-01T00:00:00Z"])
        }
        let snapshot = try await transport.firestore().document("c/a").getDocument()
        #expect(snapshot.exists)
        #expect(transport.calls == ["GET /c/a"])
    }

    @Test func getDocumentWithAMaskOrAReadTimeIsABatchGet() async throws {
        let transport = Self.answering("[\(Self.found("c/a"))]")
        let db = try transport.firestore()
        let snapshot = try await db.document("c/a").getDocument(fieldMask: [try fieldPath("name")])
        #expect(snapshot.data() == ["name": "N"])
        _ = try await db.document("c/a").getDocument(readTime: ts(1_714_521_600))
        _ = try await db.document("c/a").getDocument(fieldMask: [], readTime: ts(1_714_521_600, 5000))
        #expect(transport.calls == ["POST :batchGet", "POST :batchGet", "POST :batchGet"])
        #expect(
            transport.bodies == [
                ["documents": [.string("\(Self.root)/c/a")], "mask": ["fieldPaths": ["name"]]],
                ["documents": [.string("\(Self.root)/c/a")], "readTime": "2024-05-01T00:00:00Z"],
                [
                    "documents": [.string("\(Self.root)/c/a")], "mask": ["fieldPaths": []],
                    "readTime": "2024-05-01T00:00:00.000005Z",
                ],
            ])
    }

    @Test func aMissingDocumentAtAReadTimeDoesNotExist() async throws {
        let transport = Self.answering("[\(Self.missing("c/a"))]")
        let snapshot = try await transport.firestore().document("c/a").getDocument(readTime: ts(1_714_521_600))
        #expect(snapshot.exists == false)
        #expect(snapshot.reference.path == "c/a")
    }

    /// One batchGet for the distinct names; the snapshots in the order asked, a repeated reference twice, a missing
    /// document as not existing, whatever order the server answers in.
    @Test func getAllKeepsTheOrderAskedAndReadsARepeatOnce() async throws {
        let transport = Self.answering(
            "[\(Self.missing("c/b")),\(Self.found("c/c", #"{"n":{"integerValue":"3"}}"#)),\(Self.found("c/a"))]")
        let db = try transport.firestore()
        let name = try fieldPath("name")
        let snapshots = try await db.getAll(
            [db.document("c/a"), db.document("c/b"), db.document("c/c"), db.document("c/a")], fieldMask: [name],
            readTime: ts(1_714_521_600))
        #expect(snapshots.map(\.reference.path) == ["c/a", "c/b", "c/c", "c/a"])
        #expect(snapshots.map(\.exists) == [true, false, true, true])
        #expect(snapshots[2].data() == ["n": 3])
        #expect(
            transport.bodies == [
                [
                    "documents": [
                        .string("\(Self.root)/c/a"), .string("\(Self.root)/c/b"), .string("\(Self.root)/c/c"),
                    ],
                    "mask": ["fieldPaths": ["name"]], "readTime": "2024-05-01T00:00:00Z",
                ]
            ])
    }

    @Test func getAllOfNothingSendsNothing() async throws {
        let transport = Self.answering("[]")
        #expect(try await transport.firestore().getAll([]).isEmpty)
        #expect(transport.requests.isEmpty)
    }

    @Test func getAllRefusesADocumentOfAnotherDatabaseBeforeSending() async throws {
        let transport = Self.answering("[]")
        let other = Firestore(
            database: try DatabaseID(projectID: "other"), baseURL: "http://test.invalid/v1/",
            credentials: NoCredentials(), transport: transport, isEmulator: false)
        let error = await #expect(throws: FirestoreError.self) {
            try await transport.firestore().getAll([other.document("c/a")])
        }
        #expect(error?.code == .invalidArgument)
        #expect(transport.requests.isEmpty)
    }

    @Test func aResponseThatLeavesADocumentOutIsAnError() async throws {
        let transport = Self.answering("[\(Self.found("c/a"))]")
        let db = try transport.firestore()
        let error = await #expect(throws: FirestoreError.self) {
            try await db.getAll([db.document("c/a"), db.document("c/b")])
        }
        #expect(error?.code == .internal)
        #expect(error?.message == "batchGet response has neither found nor missing for \(Self.root)/c/b")
    }

    @Test func aQueryAtAReadTimeSendsIt() async throws {
        let transport = Self.answering(#"[{"readTime":"2024-05-01T00:00:00Z","done":true}]"#)
        let snapshot = try await transport.firestore().collection("c").getDocuments(readTime: ts(1_714_521_600))
        #expect(snapshot.isEmpty)
        #expect(snapshot.readTime == ts(1_714_521_600))
        #expect(transport.bodies.first?["readTime"] == "2024-05-01T00:00:00Z")
    }

    // MARK: - listDocuments

    static let listedPage = """
        {"documents":[
          {"name":"\(root)/users/ann","fields":{"age":{"integerValue":"40"}},"createTime":"2024-01-01T00:00:00Z","updateTime":"2024-01-01T00:00:00Z"},
          {"name":"\(root)/users/ghost"}],
         "nextPageToken":"p2"}
        """

    @Test func listDocumentsSendsOrderMaskAndShowMissing() async throws {
        let transport = ScriptedTransport { request, _ in
            request.url.contains("pageToken") ? .ok([:]) : HTTPResponse(status: 200, body: Data(Self.listedPage.utf8))
        }
        let db = try transport.firestore()
        let listed = try await db.collection("users").listDocuments(
            pageSize: 2, fieldMask: [try fieldPath("age"), try fieldPath("a b")], showMissing: true)
        #expect(listed.map(\.documentID) == ["ann", "ghost"])
        #expect(listed.map(\.exists) == [true, false])
        #expect(listed[1].reference.path == "users/ghost")
        let ordered = try await db.collection("users").listDocuments(
            pageSize: 5000,
            orderBy: [
                QueryOrder(field: try fieldPath("age"), descending: true),
                QueryOrder(field: .documentID, descending: false),
            ])
        #expect(ordered.map(\.documentID) == ["ann", "ghost"])
        #expect(
            transport.requests.map(\.url) == [
                "http://test.invalid/v1/\(Self.root)/users?pageSize=2&mask.fieldPaths=age&mask.fieldPaths=%60a%20b%60&showMissing=true",
                "http://test.invalid/v1/\(Self.root)/users?pageSize=2&mask.fieldPaths=age&mask.fieldPaths=%60a%20b%60&showMissing=true&pageToken=p2",
                "http://test.invalid/v1/\(Self.root)/users?pageSize=1000&orderBy=age%20desc%2C%20__name__",
                "http://test.invalid/v1/\(Self.root)/users?pageSize=1000&orderBy=age%20desc%2C%20__name__&pageToken=p2",
            ])
    }

    @Test func showMissingWithOrderByIsRefusedBeforeSending() async throws {
        let transport = Self.answering("{}")
        let error = await #expect(throws: FirestoreError.self) {
            try await transport.firestore().collection("users").listDocuments(
                orderBy: [QueryOrder(field: try fieldPath("age"), descending: false)], showMissing: true)
        }
        #expect(error == .invalidArgument("list users: showMissing cannot be combined with orderBy"))
        #expect(transport.requests.isEmpty)
    }

    @Test func thePageFormSendsOneRequestAndHandsBackTheToken() async throws {
        let transport = Self.answering(Self.listedPage)
        let db = try transport.firestore()
        let first = try await db.collection("users").listDocuments(pageToken: nil, pageSize: 2, showMissing: true)
        #expect(first.documents.map(\.documentID) == ["ann", "ghost"])
        #expect(first.nextPageToken == "p2")
        let second = try await db.collection("users").listDocuments(pageToken: "p2", pageSize: 2, showMissing: true)
        #expect(second.nextPageToken == "p2")
        #expect(
            transport.requests.map(\.url) == [
                "http://test.invalid/v1/\(Self.root)/users?pageSize=2&showMissing=true",
                "http://test.invalid/v1/\(Self.root)/users?pageSize=2&showMissing=true&pageToken=p2",
            ])
        let last = try await Self.answering("{}").firestore().collection("users").listDocuments(pageToken: "p3")
        #expect(last.documents.isEmpty)
        #expect(last.nextPageToken == nil)
    }

    @Test func aMalformedPageIsAnError() async throws {
        let error = await #expect(throws: FirestoreError.self) {
            try await Self.answering(#"{"documents":{}}"#).firestore().collection("users").listDocuments(pageToken: nil)
        }
        #expect(error?.message == "list users: documents is an object, not an array")
        let token = await #expect(throws: FirestoreError.self) {
            try await Self.answering(#"{"nextPageToken":7}"#).firestore().collection("users").listDocuments(
                pageToken: nil)
        }
        #expect(token?.message == "list users: nextPageToken is a number")
    }

    // MARK: - listCollectionIds

    @Test func listCollectionIdsSendsAReadTimeAndHasAPageForm() async throws {
        let transport = ScriptedTransport { request, _ in
            let body = (try? JSONValue.parse(request.body ?? Data())) ?? .null
            if body["pageToken"] == nil { return .ok(["collectionIds": ["a", "b"], "nextPageToken": "p2"]) }
            return .ok(["collectionIds": ["c"]])
        }
        let db = try transport.firestore()
        #expect(try await db.listCollectionIds(pageSize: 2, readTime: ts(1_714_521_600)) == ["a", "b", "c"])
        let page = try await db.document("c/d").listCollectionIds(pageToken: nil, pageSize: 2)
        #expect(page == ListCollectionIdsResponse(collectionIds: ["a", "b"], nextPageToken: "p2"))
        let last = try await db.listCollectionIds(pageToken: "p2", readTime: ts(1_714_521_600))
        #expect(last == ListCollectionIdsResponse(collectionIds: ["c"], nextPageToken: nil))
        #expect(try await db.document("c/d").listCollectionIds(pageSize: 2, readTime: nil) == ["a", "b", "c"])
        #expect(
            transport.calls == [
                "POST :listCollectionIds", "POST :listCollectionIds", "POST /c/d:listCollectionIds",
                "POST :listCollectionIds", "POST /c/d:listCollectionIds", "POST /c/d:listCollectionIds",
            ])
        #expect(
            Array(transport.bodies.prefix(4)) == [
                ["pageSize": 2, "readTime": "2024-05-01T00:00:00Z"],
                ["pageSize": 2, "pageToken": "p2", "readTime": "2024-05-01T00:00:00Z"],
                ["pageSize": 2],
                ["pageSize": 300, "pageToken": "p2", "readTime": "2024-05-01T00:00:00Z"],
            ])
    }
}
