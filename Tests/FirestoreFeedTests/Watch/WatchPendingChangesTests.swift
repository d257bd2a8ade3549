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

    /// Names hashed alike (``ByteExactName`` hashes the length and the last 32 bytes; these differ only before them)
    /// are still two names: the stored hash is only the first comparison.
    @Test func namesWithTheSameHashStayDistinct() {
        let tail = String(repeating: "t", count: 40)
        let (x, y) = (ByteExactName(name: "a/x" + tail), ByteExactName(name: "a/y" + tail))
        #expect(x.hashValue == y.hashValue)
        #expect(PrehashedName(x) != PrehashedName(y))
        #expect(PrehashedName(x) == PrehashedName(ByteExactName(name: "a/x" + tail)))
        var pending = WatchPendingChanges()
        pending[x] = .some(Self.document("x", version: 1))
        pending[y] = .some(nil)
        #expect(pending.count == 2)
        #expect(pending[x] == .some(Self.document("x", version: 1)))
        #expect(pending[y] == .some(nil))
        #expect(pending.map(\.name) == [x, y])
    }

    /// 5,000 names (the table grows many times), every third changed again, every seventh taken out and every
    /// fourteenth of those back: each name once, in first-arrival order (a name taken out and back arrives anew).
    @Test func manyNamesKeepTheirPlacesAcrossGrowthReplacementsAndRemovals() {
        var pending = WatchPendingChanges()
        let names = (0..<5_000).map { ByteExactName(name: Self.document("d\($0)", version: 1).name) }
        for (index, name) in names.enumerated() { pending[name] = .some(Self.document("d\(index)", version: 1)) }
        for index in stride(from: 0, to: names.count, by: 3) {
            pending[names[index]] = .some(Self.document("d\(index)", version: 2))
        }
        for index in stride(from: 0, to: names.count, by: 7) { pending[names[index]] = nil }
        for index in stride(from: 0, to: names.count, by: 14) {
            pending[names[index]] = .some(Self.document("d\(index)", version: 3))
        }
        let kept = names.indices.filter { $0 % 7 != 0 }
        let back = names.indices.filter { $0 % 14 == 0 }
        #expect(pending.count == kept.count + back.count)
        #expect(pending.map(\.name) == (kept + back).map { names[$0] })
        #expect(
            pending.map { $0.change?.updateTime?.seconds }
                == kept.map { index -> Int64? in index % 3 == 0 ? 2 : 1 } + back.map { _ -> Int64? in 3 })
        #expect(pending[names[7]] == nil)
        #expect(pending[names[14]] == .some(Self.document("d14", version: 3)))
        #expect(pending[names[3]] == .some(Self.document("d3", version: 2)))
    }
}
