import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The server SDKs' read options on the real emulator: point-in-time reads (the emulator honours `readTime` on
/// batchGet, runQuery, runAggregationQuery and listCollectionIds), field masks, `getAll`, and `listDocuments` /
/// `listCollectionIds` with their options and page forms.
@Suite(.timeLimit(.minutes(2))) struct ReadOptionsLiveTests {
    @Test(arguments: LiveFirestore.protocols) func aDocumentReadAtAReadTimeSeesTheOldVersion(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("rtdoc", wire)
        let reference = db.document("fruits/apple")
        let first = try #require(try await reference.setData(["name": "Apple", "kcal": 52]).updateTime)
        try await reference.updateData(["kcal": 60])
        #expect(try await reference.getDocument(readTime: first).data() == ["name": "Apple", "kcal": 52])
        #expect(try await reference.getDocument().data() == ["name": "Apple", "kcal": 60])
        // Before it was created, it did not exist.
        let before = try Timestamp(seconds: first.seconds - 1, nanos: first.nanos)
        #expect(try await reference.getDocument(readTime: before).exists == false)
        // A mask keeps only the named fields; an empty mask keeps none.
        let masked = try await reference.getDocument(fieldMask: [try FieldPath(["kcal"]), try FieldPath(["none"])])
        #expect(masked.data() == ["kcal": 60])
        let bare = try await reference.getDocument(fieldMask: [], readTime: first)
        #expect(bare.exists)
        #expect(bare.data() == [:])
        #expect(bare.updateTime == first)
    }

    @Test(arguments: LiveFirestore.protocols) func aQueryAtAReadTimeSeesTheOldResult(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("rtquery", wire)
        let fruits = db.collection("fruits")
        let first = try #require(try await fruits.document("apple").setData(["kcal": 52]).updateTime)
        try await fruits.document("fig").setData(["kcal": 74])
        try await fruits.document("apple").updateData(["kcal": 60])
        let then = try await fruits.order(by: "kcal").getDocuments(readTime: first)
        #expect(then.documents.map(\.documentID) == ["apple"])
        #expect(then.documents.map { $0.get("kcal") } == [52])
        #expect(then.readTime == first)
        let now = try await fruits.order(by: "kcal").getDocuments()
        #expect(now.documents.map(\.documentID) == ["apple", "fig"])
        #expect(try await fruits.count.getAggregation(readTime: first).count == 1)
        #expect(try await fruits.count.getAggregation().count == 2)
        // A time outside the emulator's window is refused.
        let error = await #expect(throws: FirestoreError.self) {
            try await fruits.getDocuments(readTime: Timestamp(date: Date(timeIntervalSince1970: 978_307_200)))
        }
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message == "The requested 'read_time' is too old.")
    }

    @Test(arguments: LiveFirestore.protocols) func getAllReadsInTheOrderAskedWithAMaskAndAReadTime(
        wire: FirestoreProtocol
    ) async throws {
        let db = try LiveFirestore.make("getall", wire)
        let apple = db.document("fruits/apple")
        let fig = db.document("fruits/fig")
        let none = db.document("fruits/none")
        let first = try #require(try await apple.setData(["name": "Apple", "kcal": 52]).updateTime)
        try await fig.setData(["name": "Fig", "kcal": 74])
        let snapshots = try await db.getAll([fig, none, apple, fig], fieldMask: [try FieldPath(["name"])])
        #expect(snapshots.map(\.documentID) == ["fig", "none", "apple", "fig"])
        #expect(snapshots.map { $0.data() } == [["name": "Fig"], nil, ["name": "Apple"], ["name": "Fig"]])
        let then = try await db.getAll([apple, fig], readTime: first)
        #expect(then.map(\.exists) == [true, false])
        #expect(then[0].data() == ["name": "Apple", "kcal": 52])
    }

    /// `users/ghost` exists only as the parent of `users/ghost/posts/p`: listed with `showMissing` as a document
    /// that does not exist, left out otherwise.
    @Test(arguments: LiveFirestore.protocols) func listDocumentsShowsMissingParentsOnRequest(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("showmissing", wire)
        try await db.document("users/ann").setData(["name": "Ann", "age": 40])
        try await db.document("users/ghost/posts/p").setData(["title": "Hi"])
        try await db.document("users/zed").setData(["name": "Zed", "age": 30])
        let all = try await db.collection("users").listDocuments(showMissing: true)
        #expect(all.map(\.documentID) == ["ann", "ghost", "zed"])
        #expect(all.map(\.exists) == [true, false, true])
        #expect(all[1].reference.path == "users/ghost")
        #expect(try await db.collection("users").listDocuments().map(\.documentID) == ["ann", "zed"])
        // A mask keeps the named fields; the emulator ignores it together with showMissing.
        let masked = try await db.collection("users").listDocuments(fieldMask: [try FieldPath(["age"])])
        #expect(masked.map { $0.data() } == [["age": 40], ["age": 30]])
        let maskedMissing = try await db.collection("users").listDocuments(
            fieldMask: [try FieldPath(["age"])], showMissing: true)
        #expect(maskedMissing.map { $0.data() } == [["name": "Ann", "age": 40], nil, ["name": "Zed", "age": 30]])
    }

    @Test(arguments: LiveFirestore.protocols) func listDocumentsInAnOrderOfTheCallersChoice(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("listorder", wire)
        for (id, age) in [("a", 30), ("b", 40), ("c", 20)] {
            try await db.document("users/\(id)").setData(["age": .integer(Int64(age))])
        }
        try await db.document("users/d").setData(["name": "no age"])
        let byAge = try await db.collection("users").listDocuments(
            orderBy: [QueryOrder(field: try FieldPath(["age"]), descending: true)])
        #expect(byAge.map(\.documentID) == ["b", "a", "c"])
        // The emulator fails the second page of an ordered list with 500 UNKNOWN (firestore-rest reference, 2.3).
        let error = await #expect(throws: FirestoreError.self) {
            try await db.collection("users").listDocuments(
                pageSize: 1, orderBy: [QueryOrder(field: try FieldPath(["age"]), descending: true)])
        }
        #expect(error?.code == .unknown)
    }

    @Test(arguments: LiveFirestore.protocols) func listDocumentsOnePageAtATime(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("listpages", wire)
        for id in ["d1", "d2", "d3", "d4", "d5"] { try await db.document("items/\(id)").setData(["id": .string(id)]) }
        var pages: [[String]] = []
        var token: String?
        repeat {
            let page = try await db.collection("items").listDocuments(pageToken: token, pageSize: 2)
            pages.append(page.documents.map(\.documentID))
            token = page.nextPageToken
        } while token != nil && pages.count < 10
        #expect(pages == [["d1", "d2"], ["d3", "d4"], ["d5"]])
    }

    @Test(arguments: LiveFirestore.protocols) func listCollectionIdsAtAReadTimeAndOnePageAtATime(
        wire: FirestoreProtocol
    ) async throws {
        let db = try LiveFirestore.make("collidsrt", wire)
        let first = try #require(try await db.document("alpha/d").setData(["n": 1]).updateTime)
        try await db.document("beta/d").setData(["n": 1])
        try await db.document("gamma/d").setData(["n": 1])
        try await db.document("alpha/d/sub/x").setData(["n": 1])
        #expect(try await db.listCollectionIds(readTime: first) == ["alpha"])
        #expect(try await db.listCollectionIds() == ["alpha", "beta", "gamma"])
        #expect(try await db.document("alpha/d").listCollectionIds(readTime: first) == [])
        #expect(try await db.document("alpha/d").listCollectionIds(readTime: nil) == ["sub"])
        let page = try await db.listCollectionIds(pageToken: nil, pageSize: 2)
        #expect(page.collectionIds == ["alpha", "beta"])
        let next = try #require(page.nextPageToken)
        let last = try await db.listCollectionIds(pageToken: next, pageSize: 2)
        #expect(last.collectionIds == ["gamma"])
        #expect(last.nextPageToken == nil)
    }
}
