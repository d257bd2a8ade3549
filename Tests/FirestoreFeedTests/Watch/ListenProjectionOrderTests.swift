import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Testing

/// A Listen view places each document by its own fields, so a query whose projection leaves out a field it orders by
/// cannot be kept in order over Listen (found by comparing the feed's first snapshot with `getDocuments()`: the
/// documents came back in name order). Such a Listen feed ends before anything is sent, saying why and what to do;
/// a projection that keeps the ordered fields (or one of their parents) is a feed as any other.
@Suite(.timeLimit(.minutes(2))) struct ListenProjectionOrderTests {
    @Test func aProjectionWithoutAnOrderedFieldEndsTheFeedWithTheReason() async throws {
        let db = try Firestore.offline()
        let query = db.collection("r2").select(["plain"]).order(by: "i")
        let error = await #expect(throws: FirestoreError.self) {
            for try await _ in query.snapshots() {}
        }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message
                == "a Listen feed of r2 cannot keep the query's order: its projection leaves out i, which the query "
                + "orders by; add i to select(fields:), or poll with .poll(.full), which keeps the server's order")
    }

    @Test func aProjectionThatKeepsTheOrderedFieldsIsAllowed() throws {
        let db = try Firestore.offline()
        let kept = db.collection("r2").select(["plain", "i"]).order(by: "i").query
        let parent = db.collection("r2").select(["stock"]).order(by: "stock.shelf").query
        #expect(DeltaRequests.projectionLeavesOutAnOrder(kept) == nil)
        #expect(DeltaRequests.projectionLeavesOutAnOrder(parent) == nil)
        let left = db.collection("r2").select(["plain"]).order(by: "i").query
        #expect(DeltaRequests.projectionLeavesOutAnOrder(left) == (try FieldPath(["i"])))
    }
}
