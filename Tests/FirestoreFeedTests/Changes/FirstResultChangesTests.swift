import FirestoreREST
import Testing

@testable import FirestoreFeed

/// A first result whose names are unique (`checkedChanges(from: [], to:, ordering:, namesAreUnique: true)`, what a
/// Listen target passes for its view) gets the changes and the mismatch the full computation and replay give: every
/// document added at its own position when the list is in the ordering's order, and otherwise the server-order
/// changes with the mismatch described.
@Suite(.timeLimit(.minutes(2))) struct FirstResultChangesTests {
    static let root = "projects/p/databases/(default)/documents/"

    static let byA: DocumentOrdering = {
        guard let field = try? FieldPath(["a"]) else { return DocumentOrdering(orders: []) }
        return DocumentOrdering(orders: [QueryOrder(field: field, descending: false)])
    }()

    static func document(_ id: String, a: Int) -> Document {
        Document(name: root + "c/" + id, fields: ["a": .integer(Int64(a))], createTime: .minimum, updateTime: .minimum)
    }

    /// In the ordering's order (ties on `a` broken by name), out of it, one document, none.
    static let lists: [[Document]] = [
        [document("a", a: 1), document("b", a: 1), document("c", a: 2), document("x", a: 5)],
        [document("a", a: 1), document("c", a: 0), document("b", a: 3)],
        [document("b", a: 1), document("a", a: 1)],
        [document("only", a: 7)],
        [],
    ]

    @Test(arguments: lists.indices)
    func uniqueNamesGiveTheComputedChanges(index: Int) {
        let list = Self.lists[index]
        let fast = DocumentChangeComputation.checkedChanges(
            from: [], to: list, ordering: Self.byA, namesAreUnique: true)
        let computed = DocumentChangeComputation.checkedChanges(from: [], to: list, ordering: Self.byA)
        #expect(fast == computed)
    }

    @Test func aListInOrderIsEveryDocumentAddedAtItsPosition() {
        let list = Self.lists[0]
        let checked = DocumentChangeComputation.checkedChanges(
            from: [], to: list, ordering: Self.byA, namesAreUnique: true)
        #expect(
            checked.changes == [
                ComputedChange(type: .added, document: list[0], oldIndex: nil, newIndex: 0),
                ComputedChange(type: .added, document: list[1], oldIndex: nil, newIndex: 1),
                ComputedChange(type: .added, document: list[2], oldIndex: nil, newIndex: 2),
                ComputedChange(type: .added, document: list[3], oldIndex: nil, newIndex: 3),
            ])
        #expect(checked.mismatch == nil)
    }

    @Test func aListOutOfOrderIsReportedAsTheComputationReportsIt() {
        let checked = DocumentChangeComputation.checkedChanges(
            from: [], to: Self.lists[1], ordering: Self.byA, namesAreUnique: true)
        #expect(checked.mismatch != nil)
        #expect(checked.changes.map(\.newIndex) == [0, 1, 2])
    }
}
