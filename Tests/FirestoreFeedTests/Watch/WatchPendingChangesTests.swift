import FirestoreFeed
import FirestoreREST
import Testing

/// A target's pending changes iterate in the order their names first arrived, a later change of a name keeps its
/// place, and a name taken out is skipped.
@Suite(.timeLimit(.minutes(1))) struct WatchPendingChangesTests {
    static func document(_ id: String, version: Int64) -> Document {
        let time = (try? Timestamp(seconds: version, nanos: 0)) ?? .minimum
        return Document(name: "projects/p/databases/(default)/documents/c/\(id)", updateTime: time)
    }

    @Test func changesIterateInArrivalOrderAndAReplacementKeepsItsPlace() {
        var pending = WatchPendingChanges()
        for id in ["m", "b", "z", "a"] {
            pending[ByteExactName(name: Self.document(id, version: 1).name)] = .some(Self.document(id, version: 1))
        }
        let b = ByteExactName(name: Self.document("b", version: 1).name)
        pending[b] = .some(Self.document("b", version: 2))
        pending[ByteExactName(name: Self.document("z", version: 1).name)] = .some(nil)
        pending[ByteExactName(name: Self.document("a", version: 1).name)] = nil
        #expect(pending.count == 3)
        #expect(pending.map { $0.name.name.split(separator: "/").last.map(String.init) ?? "" } == ["m", "b", "z"])
        #expect(pending.map { $0.change?.updateTime?.seconds } == [1, 2, nil])
        #expect(pending[b] == .some(Self.document("b", version: 2)))
        pending.removeAll()
        #expect(pending.isEmpty && Array(pending).isEmpty)
    }
}
