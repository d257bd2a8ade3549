import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Every write form and every `FieldValue` sentinel against the real emulator, checked by reading back exact
/// values; preconditions; batches; listCollectionIds.
@Suite(.timeLimit(.minutes(2))) struct WriteLiveTests {
    @Test(arguments: LiveFirestore.protocols) func createRefusesAnExistingDocument(wire: FirestoreProtocol) async throws
    {
        let db = try LiveFirestore.make("create", wire)
        let reference = db.document("fruits/apple")
        try await reference.create(["name": "Apple", "kcal": 52])
        #expect(try await reference.getDocument().data() == ["name": "Apple", "kcal": 52])
        let error = await #expect(throws: FirestoreError.self) { try await reference.create(["name": "Other"]) }
        #expect(error?.code == .alreadyExists)
        #expect(try await reference.getDocument().data() == ["name": "Apple", "kcal": 52])
    }

    @Test(arguments: LiveFirestore.protocols) func setReplacesAndMergeFieldsWriteOnlyTheirFields(
        wire: FirestoreProtocol
    ) async throws {
        let db = try LiveFirestore.make("set", wire)
        let reference = db.document("fruits/apple")
        try await reference.setData(["name": "Apple", "color": "red", "stats": ["kcal": 52, "g": 100]])
        try await reference.setData(["name": "Green apple"])
        #expect(try await reference.getDocument().data() == ["name": "Green apple"])

        try await reference.setData(["name": "Apple", "color": "red", "stats": ["kcal": 52, "g": 100], "a.b": 1])
        try await reference.setData(
            ["name": "ignored", "color": "green", "stats": ["kcal": 60, "g": 999]],
            mergeFields: ["color", "stats.kcal"])
        try await reference.setData(["a.b": 2, "color": "ignored"], mergeFields: [try FieldPath(["a.b"])])
        #expect(
            try await reference.getDocument().data() == [
                "name": "Apple", "color": "green", "stats": ["kcal": 60, "g": 100], "a.b": 2,
            ])

        try await reference.setData(["stats": ["g": .delete()], "color": .delete(), "new": true], merge: true)
        #expect(
            try await reference.getDocument().data() == [
                "name": "Apple", "stats": ["kcal": 60], "a.b": 2, "new": true,
            ])
    }

    @Test(arguments: LiveFirestore.protocols) func updateSplitsDottedKeysAndKeepsFieldPathsLiteral(
        wire: FirestoreProtocol
    ) async throws {
        let db = try LiveFirestore.make("update", wire)
        let reference = db.document("fruits/apple")
        try await reference.setData(["name": "Apple", "m": ["x": 1, "y": 2], "odd.name": 1, "gone": true])
        try await reference.updateData(["m.x": 10, "gone": .delete(), "m.z": ["k.l": "literal inside"]])
        try await reference.updateData(fields: [try FieldPath(["odd.name"]): 2])
        try await reference.updateData(pathsAndValues: [
            (try FieldPath(["m", "y"]), .delete()), (try FieldPath(["n"]), 3),
        ])
        #expect(
            try await reference.getDocument().data() == [
                "name": "Apple", "m": ["x": 10, "z": ["k.l": "literal inside"]], "odd.name": 2, "n": 3,
            ])
        let error = await #expect(throws: FirestoreError.self) {
            try await db.document("fruits/missing").updateData(["a": 1])
        }
        #expect(error?.code == .notFound)
    }

    @Test(arguments: LiveFirestore.protocols) func serverTimestampIsTheServersTimeOfTheWrite(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("st", wire)
        let reference = db.document("docs/d")
        let before = Date()
        try await reference.create(["at": .serverTimestamp(), "nested": ["at": FieldValue.serverTimestamp()]])
        let after = Date()
        let snapshot = try await reference.getDocument()
        guard case .timestamp(let at)? = snapshot.get("at"), case .timestamp(let nested)? = snapshot.get("nested.at")
        else {
            Issue.record("expected timestamps, got \(String(describing: snapshot.data()))")
            return
        }
        #expect(at == nested)
        // REQUEST_TIME has millisecond precision (firestore-rest.md §1.6); the emulator shares this clock.
        #expect(at.nanos % 1_000_000 == 0)
        #expect(at.dateValue >= before.addingTimeInterval(-0.5) && at.dateValue <= after.addingTimeInterval(0.5))
        #expect(snapshot.data()?.count == 2)
    }

    @Test(arguments: LiveFirestore.protocols) func numericSentinelsReadBackExactly(wire: FirestoreProtocol) async throws
    {
        let db = try LiveFirestore.make("numeric", wire)
        let reference = db.document("counters/c")
        try await reference.setData(["i": 5, "d": 1.5, "mixed": 1, "hi": 10, "lo": 10, "text": "x"])
        try await reference.updateData([
            "i": .increment(Int64(3)), "d": .increment(0.25), "mixed": .increment(0.5), "missing": .increment(Int64(7)),
            "hi": .maximum(Int64(12)), "lo": .minimum(Int64(3)), "text": .increment(Int64(2)),
        ])
        #expect(
            try await reference.getDocument().data() == [
                "i": 8, "d": 1.75, "mixed": 1.5, "missing": 7, "hi": 12, "lo": 3, "text": 2,
            ])
        try await reference.updateData(["hi": .maximum(Int64(11)), "lo": .minimum(4.5), "i": .increment(-8)])
        #expect(
            try await reference.getDocument().data() == [
                "i": 0, "d": 1.75, "mixed": 1.5, "missing": 7, "hi": 12, "lo": 3, "text": 2,
            ])
    }

    @Test(arguments: LiveFirestore.protocols) func arraySentinelsReadBackExactly(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("arrays", wire)
        let reference = db.document("lists/l")
        try await reference.setData(["tags": ["a", "b", "a", "c"], "n": [1, 2]])
        try await reference.updateData([
            "tags": .arrayRemove(["a", "zz"]), "n": .arrayUnion([2, 3, ["k": 1]]), "fresh": .arrayUnion(["x", "x"]),
            "none": .arrayRemove([1]),
        ])
        #expect(
            try await reference.getDocument().data() == [
                "tags": ["b", "c"], "n": [1, 2, 3, ["k": 1]], "fresh": ["x"], "none": [],
            ])
    }

    @Test(arguments: LiveFirestore.protocols) func transformsAloneStillWriteTheDocument(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("alone", wire)
        let reference = db.document("docs/d")
        try await reference.setData(["n": .increment(Int64(1))])
        try await reference.setData(["n": .increment(Int64(1))], merge: true)
        try await reference.updateData(["n": .increment(Int64(1))])
        #expect(try await reference.getDocument().data() == ["n": 3])
    }

    @Test(arguments: LiveFirestore.protocols) func addDocumentTakesSentinels(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("addsentinel", wire)
        let reference = try await db.collection("notes").addDocument(data: [
            "text": "hi", "count": .increment(Int64(2)),
        ])
        #expect(try await reference.getDocument().data() == ["text": "hi", "count": 2])
    }

    @Test(arguments: LiveFirestore.protocols) func preconditionsAreEnforced(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("preconditions", wire)
        let reference = db.document("docs/d")
        try await reference.setData(["v": 1])
        let firstTime = try #require(try await reference.getDocument().updateTime)
        try await reference.updateData(["v": 2], precondition: .updateTime(firstTime))
        let secondTime = try #require(try await reference.getDocument().updateTime)
        #expect(secondTime > firstTime)

        let stale = await #expect(throws: FirestoreError.self) {
            try await reference.updateData(["v": 3], precondition: .updateTime(firstTime))
        }
        #expect(stale?.code == .failedPrecondition)
        let staleDelete = await #expect(throws: FirestoreError.self) {
            try await reference.delete(precondition: .updateTime(firstTime))
        }
        #expect(staleDelete?.code == .failedPrecondition)
        #expect(try await reference.getDocument().data() == ["v": 2])

        let missing = await #expect(throws: FirestoreError.self) {
            try await db.document("docs/none").delete(precondition: .exists(true))
        }
        #expect(missing?.code == .notFound)
        try await db.document("docs/none").delete()
        try await reference.delete(precondition: .updateTime(secondTime))
        #expect(try await reference.getDocument().exists == false)
    }

    @Test(arguments: LiveFirestore.protocols) func batchIsAtomic(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("batch", wire)
        let a = db.document("items/a")
        let b = db.document("items/b")
        try await a.setData(["n": 1])

        let failing = db.batch()
        try failing.setData(["n": 2], forDocument: a)
        try failing.updateData(["n": 1], forDocument: db.document("items/missing"))
        let error = await #expect(throws: FirestoreError.self) { try await failing.commit() }
        #expect(error?.code == .notFound)
        #expect(try await a.getDocument().data() == ["n": 1])

        let batch = db.batch()
        try batch.updateData(["n": .increment(Int64(10))], forDocument: a)
            .create(["n": 5, "at": .serverTimestamp()], forDocument: b)
            .setData(["x": true], forDocument: db.document("items/c"), mergeFields: ["x"])
            .deleteDocument(db.document("items/never"))
        try await batch.commit()
        #expect(try await a.getDocument().data() == ["n": 11])
        #expect(try await b.getDocument().get("n") == 5)
        #expect(try await db.document("items/c").getDocument().data() == ["x": true])

        try await db.batch().commit()
    }

    @Test(arguments: LiveFirestore.protocols) func listCollectionIdsAtTheRootAndBelowADocument(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("collids", wire)
        #expect(try await db.listCollectionIds() == [])
        for collection in ["zeta", "alpha", "mid dle", "beta"] {
            try await db.collection(collection).document("d").setData(["n": 1])
        }
        for sub in ["reviews", "photos", "a"] {
            try await db.document("alpha/ghost").collection(sub).document("x").setData(["n": 1])
        }
        #expect(try await db.listCollectionIds(pageSize: 2) == ["alpha", "beta", "mid dle", "zeta"])
        #expect(try await db.document("alpha/ghost").listCollectionIds(pageSize: 1) == ["a", "photos", "reviews"])
        #expect(try await db.document("alpha/d").listCollectionIds() == [])
    }
}
