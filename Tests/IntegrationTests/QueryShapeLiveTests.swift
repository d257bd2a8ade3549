import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// Composite filters, cursors, limit(toLast:), select, offset and aggregations against the real emulator.
@Suite(.timeLimit(.minutes(2))) struct QueryShapeLiveTests {
    static func ids(_ query: some QueryRepresentable) async throws -> [String] {
        try await query.getDocuments().documents.map(\.documentID)
    }

    @Test(arguments: LiveFirestore.protocols) func compositeFilters(wire: FirestoreProtocol) async throws {
        let cities = try await QueryOperatorLiveTests.seeded("composite", wire)
        #expect(
            try await Self.ids(
                cities.whereFilter(
                    .orFilter([
                        .whereField("state", isEqualTo: "CA"), .whereField("name", isEqualTo: "Tokyo"),
                    ]))) == ["LA", "SF", "TOK"])
        #expect(
            try await Self.ids(
                cities.whereFilter(
                    .andFilter([
                        .whereField("state", isEqualTo: "CA"), .whereField("population", isGreaterThan: 1_000_000),
                    ]))) == ["LA"])
        #expect(
            try await Self.ids(
                cities.whereFilter(
                    .orFilter([
                        .andFilter([
                            .whereField("state", isEqualTo: "CA"), .whereField("population", isLessThan: 1_000_000),
                        ]),
                        .whereField("regions", arrayContains: "hebei"),
                    ]))) == ["SF", "BJ"])  // the inequality on population orders the results by it first
        #expect(
            try await Self.ids(
                cities.applying([
                    .whereField("state", isEqualTo: "CA"), .order(by: "population", descending: true), .limit(to: 1),
                ])) == ["LA"])
    }

    @Test(arguments: LiveFirestore.protocols) func cursorsAndPagingWithEqualSortValues(wire: FirestoreProtocol)
        async throws
    {
        let db = try LiveFirestore.make("paging-cursor", wire)
        let scores = db.collection("scores")
        // Ten documents, scores in pairs, so a page boundary falls between equal values.
        for number in 0..<10 {
            try await scores.document("p\(number)").setData(["score": .integer(Int64(number / 2))])
        }
        let ordered = scores.order(by: "score")
        #expect(try await Self.ids(ordered.start(at: [2])) == ["p4", "p5", "p6", "p7", "p8", "p9"])
        #expect(try await Self.ids(ordered.start(after: [2])) == ["p6", "p7", "p8", "p9"])
        #expect(try await Self.ids(ordered.end(at: [1])) == ["p0", "p1", "p2", "p3"])
        #expect(try await Self.ids(ordered.end(before: [1])) == ["p0", "p1"])
        #expect(
            try await Self.ids(ordered.order(by: FieldPath.documentID).start(at: [1, "p3"])) == [
                "p3", "p4", "p5", "p6", "p7", "p8", "p9",
            ])

        // Page by 3 with start(afterDocument:): the cursor carries score and __name__, so p4 and p5 (both
        // score 2) are split across pages without a duplicate or a gap.
        var pages: [[String]] = []
        var page = try await ordered.limit(to: 3).getDocuments()
        pages.append(page.documents.map(\.documentID))
        while let last = page.documents.last, page.count == 3 {
            page = try await ordered.start(afterDocument: last).limit(to: 3).getDocuments()
            pages.append(page.documents.map(\.documentID))
        }
        #expect(pages == [["p0", "p1", "p2"], ["p3", "p4", "p5"], ["p6", "p7", "p8"], ["p9"]])
        let p5 = try await scores.document("p5").getDocument()
        #expect(try await Self.ids(ordered.end(beforeDocument: p5)) == ["p0", "p1", "p2", "p3", "p4"])
        #expect(try await Self.ids(ordered.start(atDocument: p5).limit(to: 2)) == ["p5", "p6"])
        #expect(try await Self.ids(scores.order(by: FieldPath.documentID).start(after: ["p7"])) == ["p8", "p9"])
    }

    @Test(arguments: LiveFirestore.protocols) func limitToLastReturnsTheLastRowsInQueryOrder(wire: FirestoreProtocol)
        async throws
    {
        let cities = try await QueryOperatorLiveTests.seeded("last", wire)
        #expect(try await Self.ids(cities.order(by: "population").limit(toLast: 2)) == ["TOK", "BJ"])
        #expect(
            try await Self.ids(cities.order(by: "population", descending: true).limit(toLast: 2))
                == ["DC", "NAN"])  // NaN sorts below every other number
        #expect(
            try await Self.ids(cities.order(by: "population").end(before: [9_000_000]).limit(toLast: 2))
                == ["SF", "LA"])
        #expect(
            try await Self.ids(cities.order(by: "population").start(at: [860_000]).limit(toLast: 10))
                == ["SF", "LA", "TOK", "BJ"])
        await #expect(throws: FirestoreError.self) { try await cities.limit(toLast: 2).getDocuments() }
    }

    @Test(arguments: LiveFirestore.protocols) func selectAndOffset(wire: FirestoreProtocol) async throws {
        let cities = try await QueryOperatorLiveTests.seeded("select", wire)
        let selected = try await cities.whereField("state", isEqualTo: "CA").order(by: "name").select(["name"])
            .getDocuments()
        #expect(selected.documents.map { $0.data() ?? [:] } == [["name": "Los Angeles"], ["name": "San Francisco"]])
        let keysOnly = try await cities.order(by: "name").limit(to: 2).select([String]()).getDocuments()
        #expect(keysOnly.documents.map(\.documentID) == ["BJ", "LA"])
        #expect(keysOnly.documents.map { $0.data() ?? ["x": 1] } == [[:], [:]])
        #expect(keysOnly.documents.allSatisfy { $0.updateTime != nil })
        #expect(try await Self.ids(cities.order(by: "name").offset(2).limit(to: 2)) == ["NAN", "SF"])
        let response = try await cities.order(by: "name").offset(4).runQuery()
        #expect(response.skippedResults == 4)
        #expect(response.documents.map(\.id) == ["TOK", "DC"])
    }

    @Test(arguments: LiveFirestore.protocols) func aggregations(wire: FirestoreProtocol) async throws {
        let db = try LiveFirestore.make("aggregate", wire)
        let items = db.collection("items")
        try await items.document("a").setData(["n": 1, "x": 1.5, "group": "g"])
        try await items.document("b").setData(["n": 2, "x": 2.5, "group": "g"])
        try await items.document("c").setData(["n": 4, "group": "h"])
        #expect(try await items.count.getAggregation().count == 3)
        #expect(try await items.whereField("group", isEqualTo: "g").count.getAggregation().count == 2)
        #expect(try await items.count.getAggregation().readTime != nil)
        #expect(try await items.aggregate([.count(upTo: 2)]).getAggregation().count == 2)
        let perField = try await items.aggregate([.sum("n"), .average("n")]).getAggregation()
        #expect(perField.get(.sum("n")) == .integer(7))
        #expect(perField.get(.average("n")) == .double(7.0 / 3.0))
        // Aggregations over several fields in one request only consider documents holding all of them
        // (c has no x), as the Firestore documentation states.
        let all = try await items.aggregate([.count(), .sum("n"), .average("n"), .sum("x"), .average("x")])
            .getAggregation()
        #expect(all.count == 2)
        #expect(all.get(.sum("n")) == .integer(3))
        #expect(all.get(.average("n")) == .double(1.5))
        #expect(all.get(.sum("x")) == .double(4.0))
        #expect(all.get(.average("x")) == .double(2.0))
        let none = try await items.whereField("group", isEqualTo: "none").aggregate([
            .count(), .sum("n"), .average("n"),
        ])
        .getAggregation()
        #expect(none.count == 0)
        #expect(none.get(.sum("n")) == .integer(0))
        #expect(none.get(.average("n")) == AggregateValue.null)
        await #expect(throws: FirestoreError.self) {
            try await items.aggregate([.count(), .sum("a"), .sum("b"), .sum("c"), .sum("d"), .sum("e")])
                .getAggregation()
        }
    }
}
