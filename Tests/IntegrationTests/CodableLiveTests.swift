import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Codable models written with `setData(from:)` and read with `getDocument(as:)` against the real emulator
/// (issue 4; firebase-semantics.md §3.8 CodableIntegrationTests; field cases C-12, C-13, C-15).
@Suite(.timeLimit(.minutes(2))) struct CodableLiveTests {
    enum Kind: String, Codable { case fruit, vegetable }

    struct Nutrition: Codable, Equatable {
        var kcal: Int
        var sugar: Double
    }

    /// Every supported type. The timestamp has whole microseconds: the emulator keeps microseconds.
    struct Everything: Codable, Equatable {
        @DocumentID var id: String?
        @DocumentID var ref: DocumentReference?
        var int: Int
        var int8: Int8
        var int16: Int16
        var int32: Int32
        var int64Max: Int64
        var int64Min: Int64
        var uint8: UInt8
        var uint16: UInt16
        var uint32: UInt32
        var uint64: UInt64
        var uint: UInt
        var double: Double
        var float: Float
        var infinity: Double
        var flag: Bool
        var text: String
        var blob: Data
        var emptyBlob: Data
        var date: Date
        var time: Timestamp
        var point: GeoPoint
        var owner: DocumentReference
        var link: URL
        var kind: Kind
        var tags: [String]
        var emptyTags: [Int]
        var nutrition: Nutrition
        var byName: [String: Nutrition]
        var emptyMap: [String: Int]
        var missing: String?
        var present: String?
        @ExplicitNull var nullable: Int?
        @ServerTimestamp var stamped: Timestamp?
        var raw: FirestoreValue
    }

    static func everything(_ db: Firestore) throws -> Everything {
        Everything(
            int: -42, int8: .min, int16: .max, int32: .min, int64Max: .max, int64Min: .min, uint8: .max, uint16: .max,
            uint32: .max, uint64: 9_223_372_036_854_775_807, uint: 12, double: 0.1, float: 1.5, infinity: -.infinity,
            flag: true, text: "héllo \"wörld\"\n", blob: Data([0, 1, 2, 254, 255]), emptyBlob: Data(),
            date: Date(timeIntervalSince1970: 1_700_000_000.5),
            time: try Timestamp(seconds: 1_714_532_645, nanos: 123_456_000),
            point: GeoPoint(latitude: 45, longitude: 54), owner: db.document("users/ann"),
            link: try #require(URL(string: "https://example.com/a?b=c")), kind: .vegetable, tags: ["red", "sweet"],
            emptyTags: [], nutrition: Nutrition(kcal: 52, sugar: 10.4),
            byName: ["a.b": Nutrition(kcal: 1, sugar: 0)], emptyMap: [:], missing: nil, present: "here",
            nullable: nil, stamped: try Timestamp(seconds: 1_600_000_000, nanos: 5_000), raw: ["n": [1, "two"]])
    }

    @Test func everySupportedTypeRoundTripsUnchanged() async throws {
        let db = try LiveFirestore.make("codable")
        let model = try Self.everything(db)
        let reference = db.document("models/all")
        try await reference.setData(from: model)
        var expected = model
        expected.id = "all"
        expected.ref = reference
        let read = try await reference.getDocument(as: Everything.self)
        #expect(read == expected)
        // What is stored: @DocumentID not written, nil optional absent, @ExplicitNull null.
        let data = try #require(try await reference.getDocument().data())
        #expect(data["id"] == nil)
        #expect(data["ref"] == nil)
        #expect(data["missing"] == nil)
        #expect(data["nullable"] == .null)
        #expect(data["uint64"] == .integer(9_223_372_036_854_775_807))
        #expect(data["blob"] == .bytes(Data([0, 1, 2, 254, 255])))
        #expect(data["owner"] == .reference(db.database.documentsRoot + "/users/ann"))
        #expect(data["date"] == .timestamp(try Timestamp(seconds: 1_700_000_000, nanos: 500_000_000)))
    }

    @Test func batchAndTransactionWriteTheSameModel() async throws {
        let db = try LiveFirestore.make("codable-writes")
        let model = try Self.everything(db)
        let batch = db.batch()
        try batch.setData(from: model, forDocument: db.document("models/batch"))
        try await batch.commit()
        try await db.runTransaction { transaction in
            _ = try transaction.setData(from: model, forDocument: db.document("models/tx"))
        }
        for id in ["batch", "tx"] {
            var expected = model
            expected.id = id
            expected.ref = db.document("models/\(id)")
            #expect(try await db.document("models/\(id)").getDocument(as: Everything.self) == expected)
        }
        let inTransaction = try await db.runTransaction { transaction in
            try await transaction.getDocument(db.document("models/tx"), as: Everything.self)
        }
        #expect(inTransaction.id == "tx")
    }

    @Test func timestampNanosecondsComeBackAsMicroseconds() async throws {
        struct Timed: Codable, Equatable { var time: Timestamp }
        let db = try LiveFirestore.make("codable-nanos")
        let reference = db.document("times/t")
        try await reference.setData(from: Timed(time: try Timestamp(seconds: 1_714_532_645, nanos: 123_456_789)))
        #expect(
            try await reference.getDocument(as: Timed.self)
                == Timed(time: try Timestamp(seconds: 1_714_532_645, nanos: 123_456_000)))
    }

    @Test func nilServerTimestampBecomesTheCommitTime() async throws {
        struct Post: Codable {
            var title: String
            @ServerTimestamp var updatedAt: Timestamp?
        }
        let db = try LiveFirestore.make("codable-stamp")
        let reference = db.document("posts/p1")
        let before = Timestamp.now()
        try await reference.setData(from: Post(title: "t"))
        let snapshot = try await reference.getDocument()
        let post = try snapshot.data(as: Post.self)
        #expect(post.title == "t")
        let stamped = try #require(post.updatedAt)
        let updateTime = try #require(snapshot.updateTime)
        // The emulator resolves REQUEST_TIME to whole milliseconds, at or a little before the commit's
        // updateTime (firestore-rest.md, CommitResponse), so the two are not equal.
        #expect(stamped.nanos % 1_000_000 == 0)
        #expect(stamped <= updateTime)
        #expect(stamped.seconds >= before.seconds - 5)
    }

    @Test func c13MissingDocumentLive() async throws {
        struct U: Codable, Equatable { var name: String }
        let db = try LiveFirestore.make("codable-missing")
        let reference = db.document("users/nobody")
        #expect(try await reference.getDocument(as: U?.self) == nil)
        do {
            _ = try await reference.getDocument(as: U.self)
            Issue.record("expected not-found")
        } catch let error as FirestoreError {
            #expect(error.code == .notFound)
            #expect(error.message == "users/nobody: document does not exist")
        }
    }

    @Test func c15MergeWithNilLeavesOrClearsTheField() async throws {
        struct Obj: Codable, Equatable {
            var value: String
            var date: Timestamp?
        }
        let db = try LiveFirestore.make("codable-merge")
        let stored = try Timestamp(seconds: 1_700_000_000, nanos: 0)
        let reference = db.document("objs/o1")
        try await reference.setData(["value": "a", "date": .timestamp(stored)])
        // Default: nil is left out, so the merge keeps the stored date.
        try await reference.setData(from: Obj(value: "b", date: nil), merge: true)
        #expect(try await reference.getDocument().data() == ["value": "b", "date": .timestamp(stored)])
        // NilEncodingStrategy.null writes null, which clears it; absent and null both decode as nil.
        var encoder = FirestoreEncoder()
        encoder.nilEncodingStrategy = .null
        try await reference.setData(from: Obj(value: "c", date: nil), merge: true, encoder: encoder)
        #expect(try await reference.getDocument().data() == ["value": "c", "date": .null])
        #expect(try await reference.getDocument(as: Obj.self) == Obj(value: "c", date: nil))
    }

    @Test func c12QueryDecodingLive() async throws {
        struct U: Codable, Equatable { var name: String }
        let db = try LiveFirestore.make("codable-query")
        try await db.document("users/u1").setData(["name": "Ann"])
        try await db.document("users/u2").setData(["name": 7])
        let decoded = try await db.collection("users").order(by: FieldPath.documentID)
            .getDocuments(as: U.self, strategy: .ignore)
        #expect(decoded.values == [U(name: "Ann")])
        #expect(decoded.failures.map(\.description) == ["users/u2: name: expected String, found integerValue"])
        let raised = await #expect(throws: DocumentDecodingFailure.self) {
            try await db.collection("users").getDocuments(as: U.self, strategy: .raise)
        }
        #expect(raised?.description == "users/u2: name: expected String, found integerValue")
        #expect(raised?.error is DecodingError)
    }

    /// Issue 17: a decode failure of `getDocument(as:)` prints as the package's other errors do, the document and
    /// field named in one short line, not as `DecodingError.typeMismatch: ... Debug description: ...`.
    @Test func getDocumentAsFailurePrintsShort() async throws {
        struct U: Codable { var name: String }
        let db = try LiveFirestore.make("codable-short")
        try await db.document("fruits/u2").setData(["name": 7])
        do {
            _ = try await db.document("fruits/u2").getDocument(as: U.self)
            Issue.record("expected a decoding failure")
        } catch {
            #expect("\(error)" == "fruits/u2: name: expected String, found integerValue")
            #expect((error as? DocumentDecodingFailure)?.documentPath == "fruits/u2")
        }
    }

    @Test func addDocumentFromAModel() async throws {
        struct Note: Codable, Equatable {
            @DocumentID var id: String?
            var text: String
        }
        let db = try LiveFirestore.make("codable-add")
        let reference = try await db.collection("notes").addDocument(from: Note(text: "hi"))
        #expect(try await reference.getDocument(as: Note.self) == Note(id: reference.documentID, text: "hi"))
    }
}
