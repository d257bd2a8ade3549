import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Each query operator against the real emulator, over a fixed set of cities.
@Suite(.timeLimit(.minutes(2))) struct QueryOperatorLiveTests {
    static let cities: [(String, [String: FirestoreValue])] = [
        ("SF", ["name": "San Francisco", "state": "CA", "population": 860_000, "regions": ["west_coast", "norcal"]]),
        ("LA", ["name": "Los Angeles", "state": "CA", "population": 3_900_000, "regions": ["west_coast", "socal"]]),
        ("DC", ["name": "Washington", "state": .null, "population": 680_000, "regions": ["east_coast"]]),
        ("TOK", ["name": "Tokyo", "state": .null, "population": 9_000_000, "regions": ["kanto", "honshu"]]),
        ("BJ", ["name": "Beijing", "state": .null, "population": 21_500_000, "regions": ["jingjinji", "hebei"]]),
        ("NAN", ["name": "Nowhere", "state": "XX", "population": .double(.nan), "regions": []]),
    ]

    static func seeded(_ label: String, _ wire: FirestoreProtocol) async throws -> CollectionReference {
        let db = try LiveFirestore.make(label, wire)
        let cities = db.collection("cities")
        for (id, fields) in Self.cities { try await cities.document(id).setData([String: FieldValue](fields)) }
        return cities
    }

    static func ids(_ query: some QueryRepresentable) async throws -> [String] {
        try await query.getDocuments().documents.map(\.documentID)
    }

    @Test(arguments: LiveFirestore.protocols) func everyOperatorReturnsTheAssertedDocuments(wire: FirestoreProtocol)
        async throws
    {
        let cities = try await Self.seeded("operators", wire)
        #expect(try await Self.ids(cities.whereField("state", isEqualTo: "CA")) == ["LA", "SF"])
        #expect(try await Self.ids(cities.whereField("state", isNotEqualTo: "CA")) == ["NAN"])
        #expect(try await Self.ids(cities.whereField("population", isLessThan: 860_000)) == ["DC"])
        #expect(try await Self.ids(cities.whereField("population", isLessThanOrEqualTo: 860_000)) == ["DC", "SF"])
        #expect(try await Self.ids(cities.whereField("population", isGreaterThan: 9_000_000)) == ["BJ"])
        #expect(
            try await Self.ids(cities.whereField("population", isGreaterThanOrEqualTo: 9_000_000))
                == ["TOK", "BJ"])
        #expect(try await Self.ids(cities.whereField("regions", arrayContains: "west_coast")) == ["LA", "SF"])
        #expect(
            try await Self.ids(cities.whereField("regions", arrayContainsAny: ["socal", "kanto"]))
                == ["LA", "TOK"])
        #expect(try await Self.ids(cities.whereField("name", in: ["Tokyo", "Beijing", "Paris"])) == ["BJ", "TOK"])
        #expect(try await Self.ids(cities.whereField("state", notIn: ["CA"])) == ["NAN"])
        #expect(try await Self.ids(cities.whereField("state", isEqualTo: FirestoreValue.null)) == ["BJ", "DC", "TOK"])
        #expect(try await Self.ids(cities.whereField("population", isEqualTo: Double.nan)) == ["NAN"])
    }

    @Test(arguments: LiveFirestore.protocols) func orderAndLimit(wire: FirestoreProtocol) async throws {
        let cities = try await Self.seeded("order", wire)
        #expect(
            try await Self.ids(cities.order(by: "population", descending: true).limit(to: 3))
                == ["BJ", "TOK", "LA"])
        #expect(try await Self.ids(cities.order(by: "name")) == ["BJ", "LA", "NAN", "SF", "TOK", "DC"])
        #expect(
            try await Self.ids(cities.whereField("state", isEqualTo: "CA").order(by: "population"))
                == ["SF", "LA"])
        #expect(try await Self.ids(cities.limit(to: 0)) == [])
        let snapshot = try await cities.whereField("state", isEqualTo: "CA").getDocuments()
        #expect(snapshot.count == 2)
        #expect(snapshot.readTime != nil)
        #expect(snapshot.documentChanges.map(\.type) == [.added, .added])
        #expect(snapshot.documentChanges.map(\.newIndex) == [0, 1])
    }

    @Test(arguments: LiveFirestore.protocols) func subcollectionsAndCollectionGroups(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("groups", wire)
        try await db.document("cities/SF/landmarks/golden").setData(["type": "bridge"])
        try await db.document("cities/SF/landmarks/legion").setData(["type": "museum"])
        try await db.document("cities/TOK/landmarks/skytree").setData(["type": "tower"])
        try await db.document("cities/TOK/landmarks/ueno").setData(["type": "museum"])
        #expect(try await Self.ids(db.collection("cities/SF/landmarks")) == ["golden", "legion"])
        #expect(try await Self.ids(db.document("cities/TOK").collection("landmarks")) == ["skytree", "ueno"])
        let museums = try await db.collectionGroup("landmarks").whereField("type", isEqualTo: "museum")
            .getDocuments().documents.map(\.reference.path)
        #expect(museums == ["cities/SF/landmarks/legion", "cities/TOK/landmarks/ueno"])
    }
}
