import FirestoreFeed
import FirestoreREST
import Foundation
import Testing

/// Event ids across lists (issue 39): a server that restarts makes a new ``LiveList``, and a browser comes back to it
/// with the `Last-Event-ID` of the old one. The new list numbers its events after every event of the old one, so that
/// id is older than its log and the client gets a `reset`, never the new list's patches applied to the old list. No
/// network.
@Suite(.timeLimit(.minutes(1))) struct LiveListRestartTests {
    static func document(_ id: String, version: Int64) -> Document {
        Document(
            name: "projects/p/databases/(default)/documents/c/\(id)", fields: ["v": .integer(version)],
            createTime: Timestamp(date: Date(timeIntervalSince1970: 1)),
            updateTime: Timestamp(date: Date(timeIntervalSince1970: Double(1 + version))))
    }

    @Test func aClientOfAnEarlierListGetsAResetNotThePatchesOfAnotherList() async throws {
        let earlier = LiveList(firstEventID: 100)
        for version in 1...6 { earlier.update(documents: [Self.document("a", version: Int64(version))], readTime: nil) }
        #expect(earlier.lastEventID == 106)
        let later = LiveList(firstEventID: 200)
        for version in 1...8 { later.update(documents: [Self.document("b", version: Int64(version))], readTime: nil) }
        var iterator = later.events(lastEventID: "106").makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first.kind == .reset)
        #expect(first.id == 208)
        #expect(
            try JSONValue.parse(first.data)["documents"]?.arrayValue == [Self.document("b", version: 8).restJSON()])
    }

    /// By default a list's first id is the time it was made, in microseconds since 1970: a list made later numbers its
    /// events after those of one made earlier (which made fewer than one event a microsecond).
    @Test func aListMadeLaterNumbersItsEventsAfterAnEarlierOnes() async throws {
        let earlier = LiveList()
        for version in 1...3 { earlier.update(documents: [Self.document("a", version: Int64(version))], readTime: nil) }
        // Until the clock, in microseconds, is past the earlier list's last id.
        while UInt64(Date().timeIntervalSince1970 * 1_000_000) <= earlier.lastEventID {
            try await Task.sleep(for: .milliseconds(1))
        }
        let later = LiveList()
        #expect(later.lastEventID > earlier.lastEventID)
        var iterator = later.events(lastEventID: String(earlier.lastEventID)).makeAsyncIterator()
        #expect(await iterator.next()?.kind == .reset)
    }
}
