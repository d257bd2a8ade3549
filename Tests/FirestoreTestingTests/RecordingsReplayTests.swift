import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// The cassettes in `Recordings/` (recorded by `Scripts/record` from the real emulator) replayed offline
/// with the calls their scenarios made, each answer checked against written-out values.
@Suite(.timeLimit(.minutes(2))) struct RecordingsReplayTests {
    @Test func everyValueTypeRoundTripsOffline() async throws {
        let (db, transport) = try RecordingsFolder.replay("values.json", projectID: "demo-values")
        let fields: [String: FirestoreValue] = [
            "null": .null, "true": .boolean(true), "false": .boolean(false),
            "int64Max": .integer(9_223_372_036_854_775_807), "int64Min": .integer(-9_223_372_036_854_775_808),
            "double": .double(1.5), "big": .double(1e308), "negativeZero": .double(-0.0), "nan": .double(.nan),
            "infinity": .double(.infinity), "negativeInfinity": .double(-.infinity),
            "time": .timestamp(Timestamp(uncheckedSeconds: 1_714_532_645, nanos: 123_456_000)),
            "string": .string("héllo \"wörld\" \n ü 🍎"), "bytes": .bytes(Data([0, 1, 2, 255])),
            "reference": .reference("projects/demo-values/databases/(default)/documents/fruits/apple"),
            "geo": .geoPoint(GeoPoint(latitude: 37.5, longitude: -122.25)),
            "emptyArray": .array([]), "emptyMap": .map([:]), "array": .array([1, "two", 3.0, .null]),
            "map": .map(["nested": .map(["deep": .integer(-7)]), "a.b": "dotted key", "1": "digit key"]),
        ]
        let reference = db.document("types/all")
        try await reference.setData([String: FieldValue](fields))
        let snapshot = try await reference.getDocument()
        #expect(snapshot.data() == fields)
        // The emulator writes -0.0 back as 0.0 (firestore-rest.md §2.3).
        #expect(
            snapshot.get("negativeZero").map { if case .double(let d) = $0 { d.sign == .plus } else { false } } == true)
        let listed = try await db.collection("types").getDocuments()
        #expect(listed.documents.map(\.documentID) == ["all"])
        #expect(listed.documents.first?.data() == fields)
        #expect(transport.unplayedIndices == [])
    }

    @Test func oneQueryOfEachShapeOffline() async throws {
        let (db, transport) = try RecordingsFolder.replay("queries.json", projectID: "demo-queries")
        let cities = db.collection("cities")
        let seeds: [(String, [String: FirestoreValue])] = [
            (
                "SF",
                ["name": "San Francisco", "state": "CA", "population": 860_000, "regions": ["west_coast", "norcal"]]
            ),
            (
                "LA",
                ["name": "Los Angeles", "state": "CA", "population": 3_900_000, "regions": ["west_coast", "socal"]]
            ),
            ("DC", ["name": "Washington", "state": .null, "population": 680_000, "regions": ["east_coast"]]),
            ("TOK", ["name": "Tokyo", "state": .null, "population": 9_000_000, "regions": ["kanto", "honshu"]]),
            ("BJ", ["name": "Beijing", "state": .null, "population": 21_500_000, "regions": ["jingjinji", "hebei"]]),
            ("NAN", ["name": "Nowhere", "state": "XX", "population": .double(.nan), "regions": []]),
        ]
        for (id, fields) in seeds { try await cities.document(id).setData([String: FieldValue](fields)) }
        try await db.document("cities/SF/landmarks/ggb").setData(["name": "Golden Gate Bridge", "type": "bridge"])
        try await db.document("cities/TOK/landmarks/tower").setData(["name": "Tokyo Tower", "type": "tower"])

        let expected: [(Query, [String])] = [
            (cities.whereField("state", isEqualTo: "CA"), ["LA", "SF"]),
            (cities.whereField("state", isNotEqualTo: "CA"), ["NAN"]),
            (cities.whereField("population", isLessThan: 860_000), ["DC"]),
            (cities.whereField("population", isLessThanOrEqualTo: 860_000), ["DC", "SF"]),
            (cities.whereField("population", isGreaterThan: 9_000_000), ["BJ"]),
            (cities.whereField("population", isGreaterThanOrEqualTo: 9_000_000), ["TOK", "BJ"]),
            (cities.whereField("regions", arrayContains: "west_coast"), ["LA", "SF"]),
            (cities.whereField("regions", arrayContainsAny: ["socal", "kanto"]), ["LA", "TOK"]),
            (cities.whereField("name", in: ["Tokyo", "Beijing", "Paris"]), ["BJ", "TOK"]),
            (cities.whereField("state", notIn: ["CA"]), ["NAN"]),
            (cities.whereField("state", isEqualTo: FirestoreValue.null), ["BJ", "DC", "TOK"]),
            (cities.whereField("population", isEqualTo: Double.nan), ["NAN"]),
            (
                cities.whereFilter(
                    .orFilter([.whereField("state", isEqualTo: "CA"), .whereField("name", isEqualTo: "Tokyo")])),
                ["LA", "SF", "TOK"]
            ),
            (
                cities.whereFilter(
                    .andFilter([
                        .whereField("state", isEqualTo: "CA"), .whereField("population", isGreaterThan: 1_000_000),
                    ])), ["LA"]
            ),
            (cities.order(by: "population", descending: true).limit(to: 3), ["BJ", "TOK", "LA"]),
            (cities.order(by: "name"), ["BJ", "LA", "NAN", "SF", "TOK", "DC"]),
            (cities.order(by: "population").limit(toLast: 2), ["TOK", "BJ"]),
            // NaN sorts before every other number.
            (cities.order(by: "population").start(at: [860_000]), ["SF", "LA", "TOK", "BJ"]),
            (cities.order(by: "population").start(after: [860_000]), ["LA", "TOK", "BJ"]),
            (cities.order(by: "population").end(at: [860_000]), ["NAN", "DC", "SF"]),
            (cities.order(by: "population").end(before: [860_000]), ["NAN", "DC"]),
            (cities.order(by: "name").offset(4), ["TOK", "DC"]),
            (cities.whereField("state", isEqualTo: "CA").select(["name"]), ["LA", "SF"]),
            (db.collectionGroup("landmarks").whereField("type", isEqualTo: "bridge"), ["ggb"]),
        ]
        var snapshots: [QuerySnapshot] = []
        for (query, ids) in expected {
            snapshots.append(try await query.getDocuments())
            #expect(
                snapshots.last?.documents.map(\.documentID) == ids,
                "\((try? query.structuredQuery())?.serializedString() ?? "?")")
        }
        // The select(["name"]) query returns only that field.
        #expect(
            snapshots[22].documents.map { $0.data() ?? [:] } == [["name": "Los Angeles"], ["name": "San Francisco"]])
        #expect(try await cities.whereField("state", isEqualTo: "CA").count.getAggregation().count == 2)
        let all = try await cities.aggregate([.count(), .sum("population"), .average("population")]).getAggregation()
        #expect(all.count == 6)
        // A NaN population makes the sum and the average NaN.
        #expect(all.get(.sum("population"))?.doubleValue?.isNaN == true)
        #expect(all.get(.average("population"))?.doubleValue?.isNaN == true)
        #expect(transport.unplayedIndices == [])
    }

    @Test func errorResponsesOffline() async throws {
        let (db, transport) = try RecordingsFolder.replay("errors.json", projectID: "demo-errors")
        #expect(try await db.document("things/missing").getDocument().exists == false)
        await #expect(
            throws: FirestoreError(
                code: .notFound,
                message:
                    "no entity to update: app: \"dev~demo-errors\"\npath <\n  Element {\n    type: \"things\"\n    name: \"missing\"\n  }\n>\n",
                httpStatus: 404)
        ) {
            try await db.document("things/missing").updateData(["n": 1])
        }
        try await db.document("things/one").setData(["n": 1])
        await #expect(
            throws: FirestoreError(
                code: .alreadyExists,
                message: "entity already exists: EntityRef{partitionRef=dev~demo-errors, path=/things/one}",
                httpStatus: 409)
        ) {
            try await db.document("things/one").create(["n": 2])
        }
        await #expect(
            throws: FirestoreError(code: .invalidArgument, message: "Cursor has too many values.", httpStatus: 400)
        ) {
            // Sent raw: the client refuses such a query before sending it.
            _ = try await db.rawRequest(
                "POST", db.database.documentsRoot + ":runQuery",
                body: [
                    "structuredQuery": [
                        "from": [["collectionId": "things"]], "orderBy": [["field": ["fieldPath": "n"]]],
                        "startAt": ["values": [["integerValue": "1"], ["integerValue": "2"]]],
                    ]
                ])
        }
        #expect(transport.unplayedIndices == [])
    }

    @Test func permissionDeniedUnderDenyAllRulesWithAndWithoutTheOwnerToken() async throws {
        let cassette = try RecordingsFolder.cassette("denied.json")
        // Scrubbed, the owner token still shows as a token; the anonymous requests carry none.
        #expect(
            cassette.interactions.map { $0.request.header("authorization") }
                == [nil, nil, nil, "Bearer <REDACTED>", "Bearer <REDACTED>", nil])
        #expect(cassette.interactions.map(\.response.status) == [403, 403, 403, 200, 200, 403])

        // Matching on the Authorization header tells the two clients apart in any order.
        let transport = ReplayTransport(
            cassette: cassette, options: .init(matcher: CassetteMatcher.standard.adding(.header("authorization"))))
        let database = try DatabaseID(projectID: "demo-denied")
        let owner = Firestore(
            database: database, baseURL: "http://replay.invalid/v1/",
            credentials: EmulatorOwnerCredentials(), transport: transport, isEmulator: true)
        let anonymous = Firestore(
            database: database, baseURL: "http://replay.invalid/v1/", credentials: NoCredentials(),
            transport: transport, isEmulator: true)
        try await owner.document("things/secret").setData(["n": 1])
        #expect(try await owner.document("things/secret").getDocument().data() == ["n": 1])
        await #expect(
            throws: FirestoreError(
                code: .permissionDenied, message: "\nfalse for 'create' @ L7, false for 'update' @ L7", httpStatus: 403)
        ) {
            try await anonymous.document("things/secret").setData(["n": 1])
        }
        for _ in 0..<2 {
            await #expect(
                throws: FirestoreError(code: .permissionDenied, message: "\nfalse for 'get' @ L7", httpStatus: 403)
            ) {
                _ = try await anonymous.document("things/secret").getDocument()
            }
        }
        await #expect(
            throws: FirestoreError(code: .permissionDenied, message: "\nfalse for 'list' @ L7", httpStatus: 403)
        ) {
            _ = try await anonymous.collection("things").getDocuments()
        }
        #expect(transport.unplayedIndices == [])
    }
}
