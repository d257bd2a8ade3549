import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Testing

/// The conformance `listen-*.json` tests driven through the Listen protocol itself: each test's `responses` are
/// `ListenResponse`s fed, in order, to ``WatchChangeAggregator`` with the one target the tests use (ID 1, the
/// documents ordered by field `a`, then by name); the snapshots it publishes must equal the test's `snapshots`
/// (documents, changes with their indexes, read time), and an `isError` test must end in an error.
@Suite(.timeLimit(.minutes(2))) struct WatchConformanceTests {
    static let names = ConformanceData.names(prefix: "listen-")

    @Test func allFourteenListenTestsAreRun() {
        #expect(Self.names.count == 14)
        #expect(Self.names.contains("listen-target-add-wrong-id"))
        #expect(Self.names.contains("listen-target-remove"))
    }

    /// What the aggregator published for one test, or the error that ended it.
    struct Outcome {
        var snapshots: [(documents: [Document], changes: [ComputedChange], readTime: Timestamp?)] = []
        var error: FirestoreError?
    }

    static func run(_ responses: [JSONValue]) throws -> Outcome {
        var aggregator = WatchChangeAggregator()
        aggregator.addTarget(1, ordering: ListenConformanceTests.byA)
        var outcome = Outcome()
        for json in responses {
            let response = try ListenResponse(protoJSON: json)
            do {
                for event in try aggregator.apply(response) {
                    switch event {
                    case .snapshot(_, let documents, let changes, let readTime):
                        outcome.snapshots.append((documents, changes.list(for: documents), readTime))
                    case .targetFailed(_, let error):
                        outcome.error = error
                        return outcome
                    case .targetNeedsRelisten(let id, _):
                        outcome.error = FirestoreError(code: .internal, message: "target \(id) needs a re-listen")
                        return outcome
                    case .orderingMismatch(let id, let reason):
                        outcome.error = FirestoreError(code: .internal, message: "target \(id): \(reason)")
                        return outcome
                    }
                }
            } catch {
                outcome.error = error
                return outcome
            }
        }
        return outcome
    }

    @Test(arguments: names) func listen(_ name: String) throws {
        let test = try #require(try ConformanceData.test(name)["listen"])
        let outcome = try Self.run(test["responses"]?.arrayValue ?? [])
        if test["isError"] == .bool(true) {
            #expect(outcome.error != nil, "\(name) must end in an error")
            return
        }
        #expect(outcome.error == nil, "\(name): \(String(describing: outcome.error))")
        let expected = test["snapshots"]?.arrayValue ?? []
        #expect(outcome.snapshots.count == expected.count, "\(name): snapshot count")
        for (number, (snapshot, json)) in zip(outcome.snapshots, expected).enumerated() {
            let documents = try (json["docs"]?.arrayValue ?? []).map { try Document(restJSON: $0) }
            let changes = try (json["changes"]?.arrayValue ?? []).map(ListenConformanceTests.expectedChange)
            let readTime = try json["readTime"]?.stringValue.map { try Timestamp(rfc3339: $0) }
            #expect(snapshot.documents == documents, "\(name) snapshot \(number): documents")
            #expect(snapshot.changes == changes, "\(name) snapshot \(number): changes")
            #expect(snapshot.readTime == readTime, "\(name) snapshot \(number): read time")
        }
    }

    /// The two error tests end with the reasons a watch client gives.
    @Test func errorTestsEndWithTheirReasons() throws {
        let wrongID = try Self.run(
            try #require(try ConformanceData.test("listen-target-add-wrong-id")["listen"]?["responses"]?.arrayValue))
        #expect(wrongID.error?.code == .internal)
        #expect(wrongID.error?.message == "Listen: the server added target 2, which the client never asked for")
        let removed = try Self.run(
            try #require(try ConformanceData.test("listen-target-remove")["listen"]?["responses"]?.arrayValue))
        #expect(removed.error?.code == .internal)
        #expect(removed.error?.message == "Listen: the server removed target 1 without a cause")
    }
}
