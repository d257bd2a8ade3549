import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The FirestoreQuery property wrapper against the real emulator: `.ignore` keeps the decodable documents and
/// names the broken one; changing the predicates re-registers and the error clears.
@Suite(.timeLimit(.minutes(2))) struct FirestoreQueryLiveTests {
    struct Fruit: Decodable, Equatable, Sendable {
        var name: String
    }

    final class FruitStore {
        @FirestoreQuery var fruits: [Fruit]

        init(_ db: Firestore) {
            _fruits = FirestoreQuery(
                collectionPath: "fruits", predicates: [.order(by: "name")], decodingFailureStrategy: .ignore,
                firestore: db, interval: .milliseconds(50))
        }
    }

    /// Waits until `condition` holds, for up to 60 seconds (a hang guard: a loaded emulator can take seconds).
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<6_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }

    @Test func decodesTheQueryAndFollowsItsConfiguration() async throws {
        let db = try LiveFirestore.make("firestorequery")
        try await db.document("fruits/apple").setData(["name": "Apple"])
        try await db.document("fruits/broken").setData(["name": 42])
        let store = FruitStore(db)

        #expect(await Self.eventually { store.fruits == [Fruit(name: "Apple")] })
        #expect((store.$fruits.error as? DocumentDecodingFailure)?.documentPath == "fruits/broken")

        try await db.document("fruits/banana").setData(["name": "Banana"])
        #expect(await Self.eventually { store.fruits == [Fruit(name: "Apple"), Fruit(name: "Banana")] })

        store.$fruits.predicates = [
            .whereField("name", isIn: ["Apple", "Banana"]), .order(by: "name", descending: true),
        ]
        #expect(await Self.eventually { store.fruits == [Fruit(name: "Banana"), Fruit(name: "Apple")] })
        #expect(store.$fruits.error == nil)
    }
}
