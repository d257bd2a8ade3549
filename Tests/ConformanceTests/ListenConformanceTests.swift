import FirestoreFeed
import FirestoreREST
import Foundation
import Testing

/// The conformance `listen-*.json` tests: each test's expected snapshots are fed, in order, through the same
/// change computation the poller uses, and the computed changes must equal the expected ones, indexes
/// included (`firestore-rest.md` §3.3).
@Suite(.timeLimit(.minutes(2))) struct ListenConformanceTests {
    /// Every listen test that is not `isError`; the two error tests concern watch target ids, which a runQuery
    /// poller never sees.
    static let names = ConformanceData.names(prefix: "listen-").filter { name in
        (try? ConformanceData.test(name)["listen"]?["isError"]) != .bool(true)
    }

    @Test func thereAreTwelveNonErrorListenTests() {
        #expect(
            Self.names == [
                "listen-add-mod-del-add", "listen-add-one", "listen-add-three", "listen-doc-remove",
                "listen-empty", "listen-filter-nop", "listen-multi-docs", "listen-nocurrent", "listen-nomod",
                "listen-removed-target-ids", "listen-reset", "listen-target-add-nop",
            ])
        #expect(ConformanceData.names(prefix: "listen-").count == 14)
    }

    /// The conformance documents are ordered by field `a` ascending, then by name.
    static let byA: DocumentOrdering = {
        guard let field = try? FieldPath(["a"]) else { return DocumentOrdering(orders: []) }
        return DocumentOrdering(orders: [QueryOrder(field: field, descending: false)])
    }()

    @Test(arguments: names) func listen(_ name: String) throws {
        let test = try ConformanceData.test(name)
        let snapshots = test["listen"]?["snapshots"]?.arrayValue ?? []
        #expect(!snapshots.isEmpty, "\(name) has no snapshots")
        var previous: [Document] = []
        for (number, snapshot) in snapshots.enumerated() {
            let documents = try (snapshot["docs"]?.arrayValue ?? []).map { try Document(restJSON: $0) }
            let computed = DocumentChangeComputation.changes(from: previous, to: documents, ordering: Self.byA)
            let expected = try (snapshot["changes"]?.arrayValue ?? []).map(Self.expectedChange)
            #expect(computed == expected, "\(name) snapshot \(number)")
            previous = documents
        }
    }

    /// A conformance DocChange: zero values are left out, so a missing index means 0; -1 means none.
    static func expectedChange(_ json: JSONValue) throws -> ComputedChange {
        let kind: DocumentChangeType
        switch json["kind"]?.stringValue {
        case "ADDED": kind = .added
        case "REMOVED": kind = .removed
        case "MODIFIED": kind = .modified
        case let other: throw ConformanceData.LoadError(description: "unknown kind \(String(describing: other))")
        }
        func index(_ key: String) -> Int? {
            guard case .integer(let value)? = json[key] else { return 0 }
            return value < 0 ? nil : Int(value)
        }
        return ComputedChange(
            type: kind, document: try Document(restJSON: json["doc"] ?? .null),
            oldIndex: index("oldIndex"), newIndex: index("newIndex"))
    }
}
