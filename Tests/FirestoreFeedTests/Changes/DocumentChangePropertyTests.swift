import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Testing

/// The change computation (with its fast paths: merged additions, in-place modifications) against a
/// straightforward reference that applies the rules of `firestore-rest.md` §3.3 one change at a time, over
/// seeded random pairs of results ordered by field `a` (with ties) then name.
@Suite(.timeLimit(.minutes(2))) struct DocumentChangePropertyTests {
    static let byA: DocumentOrdering = {
        guard let field = try? FieldPath(["a"]) else { return DocumentOrdering(orders: []) }
        return DocumentOrdering(orders: [QueryOrder(field: field, descending: false)])
    }()

    static func document(_ id: Int, a: Int, version: Int) -> Document {
        let time = (try? Timestamp(seconds: Int64(version), nanos: 0)) ?? .minimum
        return Document(
            name: "projects/p/databases/(default)/documents/C/d\(id)", fields: ["a": .integer(Int64(a))],
            createTime: .minimum, updateTime: time)
    }

    /// The rules, one change at a time, with linear searches.
    static func reference(_ old: [Document], _ new: [Document]) -> [ComputedChange] {
        var working = old
        var changes: [ComputedChange] = []
        let newNames = Set(new.map(\.name))
        let oldByName = Dictionary(old.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
        for document in old where !newNames.contains(document.name) {
            guard let index = working.firstIndex(where: { $0.name == document.name }) else { continue }
            working.remove(at: index)
            changes.append(ComputedChange(type: .removed, document: document, oldIndex: index, newIndex: nil))
        }
        func place(_ document: Document) -> Int {
            working.firstIndex { byA.compare($0, document) > 0 } ?? working.count
        }
        for document in new where oldByName[document.name] == nil {
            let index = place(document)
            working.insert(document, at: index)
            changes.append(ComputedChange(type: .added, document: document, oldIndex: nil, newIndex: index))
        }
        for document in new {
            guard let previous = oldByName[document.name], previous.updateTime != document.updateTime,
                let oldIndex = working.firstIndex(where: { $0.name == document.name })
            else { continue }
            working.remove(at: oldIndex)
            let index = place(document)
            working.insert(document, at: index)
            changes.append(ComputedChange(type: .modified, document: document, oldIndex: oldIndex, newIndex: index))
        }
        return changes
    }

    @Test func matchesTheReferenceOnRandomPairs() {
        var random = SplitMix64(state: 2026)
        var checked = 0
        for _ in 0..<3_000 {
            let size = random.below(40)
            var nextID = 0
            var old: [Document] = []
            for _ in 0..<size {
                old.append(Self.document(nextID, a: random.below(10), version: 1))
                nextID += 1
            }
            old.sort { Self.byA.compare($0, $1) < 0 }
            var new: [Document] = []
            for document in old {
                switch random.below(6) {
                case 0: continue  // removed
                case 1:  // modified, maybe moved
                    let id = Int(document.id.dropFirst()) ?? 0
                    let a =
                        random.below(2) == 0
                        ? (document.fields["a"].flatMap { if case .integer(let v) = $0 { Int(v) } else { nil } } ?? 0)
                        : random.below(10)
                    new.append(Self.document(id, a: a, version: 2))
                case 2:  // data changed without a new updateTime: not a modification
                    var same = document
                    same.fields["b"] = .boolean(true)
                    new.append(same)
                default: new.append(document)
                }
            }
            for _ in 0..<random.below(8) {
                new.append(Self.document(nextID, a: random.below(10), version: 1))
                nextID += 1
            }
            new.sort { Self.byA.compare($0, $1) < 0 }
            let computed = DocumentChangeComputation.changes(from: old, to: new, ordering: Self.byA)
            let expected = Self.reference(old, new)
            #expect(computed == expected, "old \(old.map(\.id)) new \(new.map(\.id))")
            if computed != expected { return }
            checked += 1
        }
        #expect(checked == 3_000)
    }
}
