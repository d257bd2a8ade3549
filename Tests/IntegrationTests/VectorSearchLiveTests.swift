import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Vector search (`findNearest`) and ``VectorValue`` against the real emulator: the nearest neighbours and their
/// distances for each measure, computed here by hand from the vectors written, and what the emulator does with the
/// rest of the query (pinned in ``VectorQuery``'s documentation).
@Suite(.timeLimit(.minutes(2))) struct VectorSearchLiveTests {
    /// The documents of `items`: `tag` is the ID; `e` a 2-dimensional vector, except `f` (3 dimensions), `g` (a plain
    /// array, not a vector) and `h` (no `e`), which a search over 2-dimensional vectors leaves out.
    static let vectors: [(String, [Double])] = [
        ("a", [1, 0]), ("b", [0, 1]), ("c", [3, 4]), ("d", [-1, -1]), ("e", [1, 1]),
    ]

    /// The query vector of every search here.
    static let query: [Double] = [1, 0]

    static func seed(_ label: String) async throws -> CollectionReference {
        let db = try LiveFirestore.make(label)
        let items = db.collection("items")
        for (id, vector) in vectors {
            try await items.document(id).setData(["tag": .value(.string(id)), "e": .vector(vector)])
        }
        try await items.document("f").setData(["tag": "f", "e": .vector([1, 0, 0])])
        try await items.document("g").setData(["tag": "g", "e": [1.0, 0.0]])
        try await items.document("h").setData(["tag": "h"])
        return items
    }

    /// Each returned document's ID and its distance from the result field `dist`.
    static func ranking(_ snapshot: VectorQuerySnapshot) -> [(String, Double?)] {
        snapshot.documents.map { document in
            (document.documentID, document.get("dist").flatMap { if case .double(let d) = $0 { d } else { nil } })
        }
    }

    static func expectRanking(
        _ actual: [(String, Double?)], _ expected: [(String, Double)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(actual.map(\.0) == expected.map(\.0), sourceLocation: sourceLocation)
        for ((id, distance), (_, want)) in zip(actual, expected) {
            let got = distance ?? .nan
            #expect(abs(got - want) < 1e-12, "\(id): \(got) != \(want)", sourceLocation: sourceLocation)
        }
    }

    /// Euclidean distances from (1, 0): a (1,0) 0; e (1,1) 1; b (0,1) √2; d (−1,−1) √(4+1) = √5; c (3,4) √(4+16) = √20.
    @Test func euclideanNearestFirstWithDistances() async throws {
        let items = try await Self.seed("vector-euclid")
        let nearest = try await items.findNearest(
            vectorField: "e", queryVector: Self.query, limit: 10, distanceMeasure: .euclidean,
            distanceResultField: "dist"
        ).getDocuments()
        Self.expectRanking(
            Self.ranking(nearest),
            [("a", 0), ("e", 1), ("b", 2.0.squareRoot()), ("d", 5.0.squareRoot()), ("c", 20.0.squareRoot())])
        #expect(nearest.readTime != nil)
        // The limit keeps the nearest.
        let two = try await items.findNearest(
            vectorField: "e", queryVector: VectorValue(Self.query), limit: 2, distanceMeasure: .euclidean
        ).getDocuments()
        #expect(two.documents.map(\.documentID) == ["a", "e"])
        // Without a result field the documents are as stored.
        #expect(two.documents.first?.data() == ["tag": "a", "e": .vector([1, 0])])
    }

    /// Cosine distance 1 − (q·v)/(|q||v|) from (1, 0): a 1 − 1/1 = 0; e 1 − 1/√2; c 1 − 3/5 = 0.4; b 1 − 0 = 1;
    /// d 1 − (−1)/√2 = 1 + 1/√2.
    @Test func cosineNearestFirstWithDistances() async throws {
        let items = try await Self.seed("vector-cosine")
        let nearest = try await items.findNearest(
            vectorField: "e", queryVector: Self.query, limit: 10, distanceMeasure: .cosine, distanceResultField: "dist"
        ).getDocuments()
        let invSqrt2 = 1 / 2.0.squareRoot()
        Self.expectRanking(
            Self.ranking(nearest), [("a", 0), ("e", 1 - invSqrt2), ("c", 0.4), ("b", 1), ("d", 1 + invSqrt2)])
    }

    /// Dot product q·v with (1, 0), largest first: c 3; a 1 and e 1 (a tie, in document-ID order); b 0; d −1.
    @Test func dotProductLargestFirstWithTiesInIDOrder() async throws {
        let items = try await Self.seed("vector-dot")
        let nearest = try await items.findNearest(
            vectorField: "e", queryVector: Self.query, limit: 10, distanceMeasure: .dotProduct,
            distanceResultField: "dist"
        ).getDocuments()
        Self.expectRanking(Self.ranking(nearest), [("c", 3), ("a", 1), ("e", 1), ("b", 0), ("d", -1)])
    }

    /// `distanceThreshold` keeps distances ≤ it for euclidean and cosine, products ≥ it for the dot product; the base
    /// query's filters apply before the search.
    @Test func thresholdsAndFilters() async throws {
        let items = try await Self.seed("vector-threshold")
        let euclid = try await items.findNearest(
            vectorField: "e", queryVector: Self.query, limit: 10, distanceMeasure: .euclidean,
            distanceResultField: "dist", distanceThreshold: 1
        ).getDocuments()
        Self.expectRanking(Self.ranking(euclid), [("a", 0), ("e", 1)])
        let cosine = try await items.findNearest(
            vectorField: "e", queryVector: Self.query, limit: 10, distanceMeasure: .cosine, distanceResultField: "dist",
            distanceThreshold: 0.5
        ).getDocuments()
        Self.expectRanking(Self.ranking(cosine), [("a", 0), ("e", 1 - 1 / 2.0.squareRoot()), ("c", 0.4)])
        let dot = try await items.findNearest(
            vectorField: "e", queryVector: Self.query, limit: 10, distanceMeasure: .dotProduct,
            distanceResultField: "dist", distanceThreshold: 1
        ).getDocuments()
        Self.expectRanking(Self.ranking(dot), [("c", 3), ("a", 1), ("e", 1)])
        let filtered = try await items.whereField("tag", isNotEqualTo: "a").findNearest(
            vectorField: "e", queryVector: Self.query, limit: 2, distanceMeasure: .euclidean,
            distanceResultField: "dist"
        ).getDocuments()
        Self.expectRanking(Self.ranking(filtered), [("e", 1), ("b", 2.0.squareRoot())])
    }

    /// The rest of the query: order ignored; limit, offset and cursors refused; a projection without the result
    /// field drops the distance; a result field over an existing field replaces it; a dotted one is one top-level
    /// field.
    @Test func whatTheEmulatorDoesWithTheRestOfTheQuery() async throws {
        let items = try await Self.seed("vector-shape")
        func search(_ base: Query, limit: Int = 2, field: String? = "dist") -> VectorQuery {
            base.findNearest(
                vectorField: "e", queryVector: Self.query, limit: limit, distanceMeasure: .euclidean,
                distanceResultField: field)
        }
        let ordered = try await search(items.order(by: "tag", descending: true)).getDocuments()
        #expect(ordered.documents.map(\.documentID) == ["a", "e"])
        let restItems = items.firestore.using(protocol: .rest).collection(items.path)
        let shapes: [((CollectionReference) -> Query, String)] = [
            ({ $0.limit(to: 1) }, "A query limit cannot be used with FindNearest"),
            ({ $0.offset(1) }, "A query offset cannot be used with FindNearest"),
            ({ $0.order(by: "tag").start(at: ["c"]) }, "A cursor cannot be used with FindNearest"),
        ]
        for (shape, message) in shapes {
            // Over gRPC (the default protocol) the error has no HTTP status; over REST it is 400.
            await #expect(throws: FirestoreError(code: .invalidArgument, message: message)) {
                try await search(shape(items)).getDocuments()
            }
            await #expect(throws: FirestoreError(code: .invalidArgument, message: message, httpStatus: 400)) {
                try await search(shape(restItems)).getDocuments()
            }
        }
        let projected = try await search(items.select(["tag"])).getDocuments()
        #expect(projected.documents.map { $0.data() } == [["tag": "a"], ["tag": "e"]])
        let projectedWithDistance = try await search(items.select(["tag", "dist"])).getDocuments()
        #expect(
            projectedWithDistance.documents.map { $0.data() } == [
                ["tag": "a", "dist": 0.0], ["tag": "e", "dist": 1.0],
            ])
        let over = try await search(items.query, limit: 1, field: "tag").getDocuments()
        #expect(over.documents.first?.data() == ["tag": 0.0, "e": .vector([1, 0])])
        let dotted = try await search(items.query, limit: 1, field: "m.d").getDocuments()
        #expect(dotted.documents.first?.data() == ["tag": "a", "e": .vector([1, 0]), "m.d": 0.0])
        // What the server refuses that the client lets through: none of these reach it.
        await #expect(throws: FirestoreError.invalidArgument("findNearest: limit must be 1 ... 1000, got 1001")) {
            try await search(items.query, limit: 1001).getDocuments()
        }
    }

    struct Item: Codable, Equatable {
        @DocumentID var id: String?
        var tag: String
        var e: VectorValue
        var scores: [Double]
    }

    /// A Codable model with a ``VectorValue`` writes a vector that the search finds, and reads back equal; its
    /// `[Double]` stays an array.
    @Test func codableVectorsRoundTripAndAreSearched() async throws {
        let db = try LiveFirestore.make("vector-codable")
        let item = Item(tag: "z", e: VectorValue([0.1, 0.3, 0.4]), scores: [0.1, 0.3])
        try await db.document("models/z").setData(from: item)
        let stored = try await db.document("models/z").getDocument()
        #expect(stored.get("e") == .vector([0.1, 0.3, 0.4]))
        #expect(stored.get("scores") == [0.1, 0.3])
        var expected = item
        expected.id = "z"
        #expect(try await db.document("models/z").getDocument(as: Item.self) == expected)
        let found = try await db.collection("models").findNearest(
            vectorField: "e", queryVector: [0.1, 0.3, 0.5], limit: 1, distanceMeasure: .cosine
        ).getDocuments(as: Item.self)
        #expect(found.values == [expected])
    }

    /// The CLI prints a vector as its map and takes that map back as a vector: `get`, then `set` of the printed data.
    @Test func theCLIRoundTripsAVectorThroughPlainJSON() async throws {
        let session = try CLIWriteLiveTests.Session("vector-cli")
        try await session.db.document("items/a").setData(["e": .vector([1, 0.5])])
        let get = try await session.run(["get", "items/a"])
        #expect(get.status == 0, "\(get.stderr)")
        let printed = try JSONValue.parse(try #require(get.lines.first))
        let data = try #require(printed["data"])
        #expect(data.serializedString() == #"{"e":{"__type__":"__vector__","value":[1.0,0.5]}}"#)
        let set = try await session.run(["set", "items/b", data.serializedString()])
        #expect(set.status == 0, "\(set.stderr)")
        #expect(try await session.db.document("items/b").getDocument().get("e")?.vectorValue == VectorValue([1, 0.5]))
        let search = try await session.db.collection("items").findNearest(
            vectorField: "e", queryVector: [1, 0.5], limit: 5, distanceMeasure: .euclidean
        ).getDocuments()
        #expect(search.documents.map(\.documentID) == ["a", "b"])
    }
}
