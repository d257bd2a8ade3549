import FirestoreFeedCLI
import FirestoreREST
import FirestoreTesting
import Foundation

/// The scripted sessions `Scripts/record` records into `Recordings/`. Each uses a project of its own on a
/// fresh emulator and fixed document data, so a re-recording differs only in what the emulator makes up
/// (times, transaction IDs). The offline tests replay these cassettes with the same calls.
enum RecordingScenarios {
    enum Scenario: String, CaseIterable {
        case demo, values, queries, errors, denied, failures
        case demoListen = "demo-listen"
    }

    static let list = """
          demo      the demo's change-feed session, polling in keys mode (project demo-fruits)
          demo-listen
                    the same session through the Listen stream: its gRPC call is recorded
                    as proto3 JSON messages (demo-listen)
          values    a document with every value type written and read back (demo-values)
          queries   seeded cities, then one query of each shape and aggregations (demo-queries)
          errors    404 not found, 409 already exists, 400 invalid argument (demo-errors)
          denied    403 under deny-all rules without a token, success with the owner token
                    (demo-denied; needs an emulator started with Recordings/deny-all.rules)
          failures  a read reset, then timed out, then answered (through --fault-proxy, which
                    Scripts/record starts with --sequence reset,timeout), and a refused read
                    and write (demo-failures)
        """

    /// A scenario went differently from what its recording is meant to show.
    static func unexpected(_ what: String) -> FirestoreError {
        FirestoreError(
            code: .failedPrecondition, message: "the scenario did not behave as recorded cassettes expect: \(what)")
    }

    /// The demo's Listen recording holds the one Listen call of the demo's feed, which the demo ended by leaving
    /// (so a replay keeps the stream open after the last response, as the live server did).
    static func checkListenSessions(_ cassette: Cassette) throws(FirestoreError) {
        guard cassette.listenSessions.count == 1, let session = cassette.listenSessions.first else {
            throw unexpected("expected one Listen session, found \(cassette.listenSessions.count)")
        }
        guard session.end == .cancelledByClient else {
            throw unexpected(
                "the Listen call ended with \(session.end.map { "\($0)" } ?? "nothing") instead of the demo leaving")
        }
        guard session.responses.count >= 6 else {
            throw unexpected(
                "the Listen call has \(session.responses.count) responses, fewer than the demo's 6 snapshots")
        }
    }

    static func run(_ scenario: Scenario, host: String, proxy: String?, transport: any HTTPTransport) async throws {
        switch scenario {
        case .demo:
            let db = try Firestore.emulator(host: host, projectID: "demo-fruits", transport: transport)
            try await DemoScenario.play(db, interval: .milliseconds(200), format: .text, source: .poll(.keys))
        case .demoListen:
            let db = try Firestore.emulator(host: host, projectID: "demo-listen", transport: transport)
            try await DemoScenario.play(db, interval: .milliseconds(200), format: .text, source: .listen)
        case .values:
            try await values(try Firestore.emulator(host: host, projectID: "demo-values", transport: transport))
        case .queries:
            try await queries(try Firestore.emulator(host: host, projectID: "demo-queries", transport: transport))
        case .errors:
            try await errors(try Firestore.emulator(host: host, projectID: "demo-errors", transport: transport))
        case .denied:
            try await denied(host: host, transport: transport)
        case .failures:
            guard let proxy else { throw unexpected("the failures scenario needs --fault-proxy HOST:PORT") }
            try await FailuresScenario.run(host: host, proxy: proxy, transport: transport)
        }
    }

    // MARK: - values

    static func valueFields(projectID: String) throws -> [String: FirestoreValue] {
        [
            "null": .null,
            "true": .boolean(true),
            "false": .boolean(false),
            "int64Max": .integer(Int64.max),
            "int64Min": .integer(Int64.min),
            "double": .double(1.5),
            "big": .double(1e308),
            "negativeZero": .double(-0.0),
            "nan": .double(.nan),
            "infinity": .double(.infinity),
            "negativeInfinity": .double(-.infinity),
            "time": .timestamp(try Timestamp(rfc3339: "2024-05-01T03:04:05.123456Z")),
            "string": .string("héllo \"wörld\" \n ü 🍎"),
            "bytes": .bytes(Data([0, 1, 2, 255])),
            "reference": .reference("projects/\(projectID)/databases/(default)/documents/fruits/apple"),
            "geo": .geoPoint(GeoPoint(latitude: 37.5, longitude: -122.25)),
            "emptyArray": .array([]),
            "emptyMap": .map([:]),
            "array": .array([1, "two", 3.0, .null]),
            "map": .map(["nested": .map(["deep": .integer(-7)]), "a.b": "dotted key", "1": "digit key"]),
        ]
    }

    static func values(_ db: Firestore) async throws {
        let fields = try valueFields(projectID: db.database.projectID)
        let reference = db.document("types/all")
        try await reference.setData([String: FieldValue](fields))
        let read = try await reference.getDocument()
        guard read.data() == fields else { throw unexpected("types/all read back differently") }
        let listed = try await db.collection("types").getDocuments()
        guard listed.documents.map(\.documentID) == ["all"] else { throw unexpected("types holds other documents") }
    }

    // MARK: - queries

    static let cities: [(String, [String: FirestoreValue])] = [
        ("SF", ["name": "San Francisco", "state": "CA", "population": 860_000, "regions": ["west_coast", "norcal"]]),
        ("LA", ["name": "Los Angeles", "state": "CA", "population": 3_900_000, "regions": ["west_coast", "socal"]]),
        ("DC", ["name": "Washington", "state": .null, "population": 680_000, "regions": ["east_coast"]]),
        ("TOK", ["name": "Tokyo", "state": .null, "population": 9_000_000, "regions": ["kanto", "honshu"]]),
        ("BJ", ["name": "Beijing", "state": .null, "population": 21_500_000, "regions": ["jingjinji", "hebei"]]),
        ("NAN", ["name": "Nowhere", "state": "XX", "population": .double(.nan), "regions": []]),
    ]

    /// One query of each shape over `cities`; the offline tests list the same queries with their answers.
    static func queryShapes(_ cities: CollectionReference) -> [Query] {
        [
            cities.whereField("state", isEqualTo: "CA"),
            cities.whereField("state", isNotEqualTo: "CA"),
            cities.whereField("population", isLessThan: 860_000),
            cities.whereField("population", isLessThanOrEqualTo: 860_000),
            cities.whereField("population", isGreaterThan: 9_000_000),
            cities.whereField("population", isGreaterThanOrEqualTo: 9_000_000),
            cities.whereField("regions", arrayContains: "west_coast"),
            cities.whereField("regions", arrayContainsAny: ["socal", "kanto"]),
            cities.whereField("name", in: ["Tokyo", "Beijing", "Paris"]),
            cities.whereField("state", notIn: ["CA"]),
            cities.whereField("state", isEqualTo: FirestoreValue.null),
            cities.whereField("population", isEqualTo: Double.nan),
            cities.whereFilter(
                .orFilter([.whereField("state", isEqualTo: "CA"), .whereField("name", isEqualTo: "Tokyo")])),
            cities.whereFilter(
                .andFilter([
                    .whereField("state", isEqualTo: "CA"), .whereField("population", isGreaterThan: 1_000_000),
                ])),
            cities.order(by: "population", descending: true).limit(to: 3),
            cities.order(by: "name"),
            cities.order(by: "population").limit(toLast: 2),
            cities.order(by: "population").start(at: [860_000]),
            cities.order(by: "population").start(after: [860_000]),
            cities.order(by: "population").end(at: [860_000]),
            cities.order(by: "population").end(before: [860_000]),
            cities.order(by: "name").offset(4),
            cities.whereField("state", isEqualTo: "CA").select(["name"]),
            cities.firestore.collectionGroup("landmarks").whereField("type", isEqualTo: "bridge"),
        ]
    }

    static func queries(_ db: Firestore) async throws {
        let cities = db.collection("cities")
        for (id, fields) in Self.cities { try await cities.document(id).setData([String: FieldValue](fields)) }
        try await db.document("cities/SF/landmarks/ggb").setData(["name": "Golden Gate Bridge", "type": "bridge"])
        try await db.document("cities/TOK/landmarks/tower").setData(["name": "Tokyo Tower", "type": "tower"])
        for query in queryShapes(cities) { _ = try await query.getDocuments() }
        _ = try await cities.whereField("state", isEqualTo: "CA").count.getAggregation()
        _ = try await cities.aggregate([.count(), .sum("population"), .average("population")]).getAggregation()
    }

    // MARK: - errors

    static func expectError(_ code: FirestoreError.Code, _ what: String, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let error as FirestoreError where error.code == code && error.httpStatus != nil {
            return
        }
        throw unexpected("\(what) did not fail with \(code.name)")
    }

    static func errors(_ db: Firestore) async throws {
        let missing = try await db.document("things/missing").getDocument()  // 404, read as "does not exist"
        guard !missing.exists else { throw unexpected("things/missing exists") }
        try await expectError(.notFound, "updating a missing document") {
            try await db.document("things/missing").updateData(["n": 1])
        }
        try await db.document("things/one").setData(["n": 1])
        try await expectError(.alreadyExists, "creating an existing document") {
            try await db.document("things/one").create(["n": 2])
        }
        try await expectError(.invalidArgument, "a cursor with more values than orders") {
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
    }

    // MARK: - denied

    static func denied(host: String, transport: any HTTPTransport) async throws {
        let owner = try Firestore.emulator(host: host, projectID: "demo-denied", transport: transport)
        let anonymous = Firestore(
            database: owner.database, baseURL: owner.baseURL, credentials: NoCredentials(),
            transport: transport, isEmulator: true)
        let secret = "things/secret"
        try await expectError(.permissionDenied, "an anonymous write") {
            try await anonymous.document(secret).setData(["n": 1])
        }
        try await expectError(.permissionDenied, "an anonymous read") {
            _ = try await anonymous.document(secret).getDocument()
        }
        try await expectError(.permissionDenied, "an anonymous query") {
            _ = try await anonymous.collection("things").getDocuments()
        }
        try await owner.document(secret).setData(["n": 1])
        guard try await owner.document(secret).getDocument().data() == ["n": 1] else {
            throw unexpected("the owner could not read its write")
        }
        try await expectError(.permissionDenied, "an anonymous read of an existing document") {
            _ = try await anonymous.document(secret).getDocument()
        }
    }
}
