import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Every REST value type written to the real emulator and read back exactly.
@Suite(.timeLimit(.minutes(2))) struct ValueRoundTripLiveTests {
    @Test func everyValueTypeRoundTrips() async throws {
        let db = try LiveFirestore.make("values")
        let reference = db.document("types/all")
        let time = try Timestamp(rfc3339: "2024-05-01T03:04:05.123456Z")
        let fields: [String: FirestoreValue] = [
            "null": .null,
            "true": .boolean(true),
            "false": .boolean(false),
            "int64Max": .integer(Int64.max),
            "int64Min": .integer(Int64.min),
            "double": .double(1.5),
            "big": .double(1e308),
            "nan": .double(.nan),
            "infinity": .double(.infinity),
            "negativeInfinity": .double(-.infinity),
            "time": .timestamp(time),
            "string": .string("héllo \"wörld\" \n ü"),
            "bytes": .bytes(Data([0, 1, 2, 255])),
            "reference": .reference(db.database.documentsRoot + "/fruits/apple"),
            "geo": .geoPoint(GeoPoint(latitude: 37.5, longitude: -122.25)),
            "geoZero": .geoPoint(GeoPoint(latitude: 0, longitude: 5)),
            "emptyArray": .array([]),
            "emptyMap": .map([:]),
            "array": .array([1, "two", 3.0, .null]),
            "map": .map(["nested": .map(["deep": .integer(-7)]), "a.b": "dotted key", "1": "digit key"]),
        ]
        try await reference.setData([String: FieldValue](fields))
        let snapshot = try await reference.getDocument()
        #expect(snapshot.exists)
        #expect(snapshot.data() == fields)
        #expect(snapshot.get("map.nested.deep") == .integer(-7))
        #expect(snapshot.get(try FieldPath(["map", "a.b"])) == .string("dotted key"))
        #expect(snapshot.createTime != nil)
        #expect(snapshot.updateTime == snapshot.createTime)
    }

    @Test func timestampsAreStoredWithMicrosecondPrecision() async throws {
        let db = try LiveFirestore.make("micros")
        let reference = db.document("times/t")
        try await reference.setData([
            "nanos": .timestamp(try Timestamp(rfc3339: "2024-05-01T03:04:05.123456789Z")),
            "offset": .timestamp(try Timestamp(rfc3339: "2024-05-01T05:04:05.5+02:00")),
        ])
        let data = try await reference.getDocument().data()
        #expect(data?["nanos"] == .timestamp(try Timestamp(rfc3339: "2024-05-01T03:04:05.123456Z")))
        #expect(data?["offset"] == .timestamp(try Timestamp(seconds: 1_714_532_645, nanos: 500_000_000)))
    }

    @Test func documentIDsNeedingPercentEncodingRoundTrip() async throws {
        let db = try LiveFirestore.make("ids")
        for id in ["a#b", "50%off", "hello world", "ü", "a?b&c=d", "(paren)"] {
            let reference = db.collection("odd").document(id)
            try await reference.setData(["id": .string(id)])
            let snapshot = try await reference.getDocument()
            #expect(snapshot.documentID == id)
            #expect(snapshot.data() == ["id": .string(id)])
        }
        let listed = try await db.collection("odd").listDocuments().map(\.documentID)
        #expect(listed.sorted() == ["(paren)", "50%off", "a#b", "a?b&c=d", "hello world", "ü"])
    }

    @Test func missingDocumentIsNotAnError() async throws {
        let db = try LiveFirestore.make("missing")
        let snapshot = try await db.document("users/nobody").getDocument()
        #expect(snapshot.exists == false)
        #expect(snapshot.data() == nil)
    }

    @Test func writesMergeUpdateAndDelete() async throws {
        let db = try LiveFirestore.make("writes")
        let reference = db.document("fruits/apple")
        try await reference.setData(["name": "Apple", "color": "red", "stats": ["kcal": 52, "g": 100]])
        try await reference.setData(["stats": ["kcal": 60]], merge: true)
        #expect(
            try await reference.getDocument().data() == [
                "name": "Apple", "color": "red", "stats": ["kcal": 60, "g": 100],
            ])
        try await reference.updateData(["color": "green", "stats.g": 120])
        #expect(
            try await reference.getDocument().data() == [
                "name": "Apple", "color": "green", "stats": ["kcal": 60, "g": 120],
            ])
        try await reference.delete()
        #expect(try await reference.getDocument().exists == false)
        await #expect(throws: FirestoreError.self) { try await reference.updateData(["color": "blue"]) }
        do {
            try await reference.updateData(["color": "blue"])
        } catch let error as FirestoreError {
            #expect(error.code == .notFound)
            #expect(error.isServerStatus)
        }
    }

    @Test func addDocumentCreatesARandomID() async throws {
        let db = try LiveFirestore.make("add")
        let reference = try await db.collection("notes").addDocument(data: ["text": "hi"])
        #expect(reference.documentID.count == 20)
        #expect(try await reference.getDocument().data() == ["text": "hi"])
    }

    @Test func listDocumentsFollowsPageTokens() async throws {
        let db = try LiveFirestore.make("paging")
        let items = db.collection("items")
        for number in 0..<7 {
            try await items.document(String(format: "item%02d", number)).setData(["n": .integer(Int64(number))])
        }
        let listed = try await items.listDocuments(pageSize: 3)
        #expect(listed.map(\.documentID) == ["item00", "item01", "item02", "item03", "item04", "item05", "item06"])
    }

    @Test func serverErrorsAreDecoded() async throws {
        let db = try LiveFirestore.make("errors")
        do {
            _ = try await db.collection("c").whereField("a", isEqualTo: 1).limit(to: -1).getDocuments()
            Issue.record("a negative limit must be refused")
        } catch let error as FirestoreError {
            #expect(error.code == .invalidArgument)
            #expect(error.httpStatus == nil)
        }
        let transport = db.transport
        let response = try await transport.send(
            HTTPRequest(
                method: "POST", url: db.baseURL + db.database.documentsRoot + ":runQuery",
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: Data(
                    #"{"structuredQuery":{"from":[{"collectionId":"c"}],"orderBy":[{"field":{"fieldPath":"a"}}],"startAt":{"values":[{"integerValue":"1"},{"integerValue":"2"}]}}}"#
                        .utf8)))
        let error = FirestoreError(status: response.status, body: response.body)
        #expect(error.code == .invalidArgument)
        #expect(error.httpStatus == 400)
        #expect(error.message == "Cursor has too many values.")
    }

    @Test func connectionRefusedIsUnavailable() async throws {
        let db = try Firestore.emulator(host: "127.0.0.1:1", projectID: "demo-refused")
        do {
            _ = try await db.document("a/b").getDocument()
            Issue.record("expected an error")
        } catch let error as FirestoreError {
            #expect(error.code == .unavailable)
        }
    }
}

extension ValueRoundTripLiveTests {
    /// The protobuf codec against the REST JSON mapping on real data: the emulator's `GetDocument` over gRPC
    /// (`google.firestore.v1.Firestore/GetDocument`, decoded by `Document(protobuf:)`) and over REST return the
    /// same document, every value type included, and decoding its re-encoding gives it back.
    @Test func getDocumentOverGRPCEqualsREST() async throws {
        let db = try LiveFirestore.make("values-grpc")
        let reference = db.document("types/all")
        let fields: [String: FirestoreValue] = [
            "null": .null, "true": .boolean(true), "int64Min": .integer(Int64.min), "double": .double(-0.5),
            "nan": .double(.nan), "infinity": .double(.infinity),
            "time": .timestamp(try Timestamp(rfc3339: "1969-12-31T23:59:59.999999Z")),
            "string": .string("héllo \u{1F600}"), "bytes": .bytes(Data([0, 1, 2, 255])),
            "reference": .reference(db.database.documentsRoot + "/fruits/apple"),
            "geo": .geoPoint(GeoPoint(latitude: -37.5, longitude: 122.25)), "emptyArray": .array([]),
            "emptyMap": .map([:]), "array": .array([1, "two", 3.0, .null]),
            "map": .map(["nested": .map(["deep": .integer(-7)]), "a.b": "dotted key", "ü": "unicode key"]),
        ]
        try await reference.setData([String: FieldValue](fields))
        let rest = try #require(try await reference.getDocument().document)
        let channel = try db.makeGRPCChannel()
        let name = db.database.resourceName(of: try ResourcePath("types/all"))
        let bytes = try await channel.unary(
            method: FirestoreGRPCMethod.getDocument, request: HandProto.getDocumentRequest(name: name),
            metadata: try await db.grpcMetadata())
        let grpc = try Document(protobuf: bytes)
        #expect(grpc == rest)
        #expect(grpc.fields == fields)
        #expect(try Document(protobuf: grpc.protobuf) == grpc)
    }
}
