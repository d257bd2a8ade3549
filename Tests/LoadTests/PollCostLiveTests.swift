import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// Issue 18's cost rule on the real emulator, measured by the meter: an unchanged 10,000-document query is billed
/// 10,000 reads per keys poll and at most 1 + ceil(10,000 / 1,000) = 11 per delta poll (every poll of the feed,
/// `FeedEvent.polled`); with one document changed per poll, at most 12 plus what the margin re-reads. A load test
/// (10,000 documents written): it runs in the load phase. Two keys polls, a delta feed polling once a second.
@Suite(.timeLimit(.minutes(5))) struct PollCostLiveTests {
    @Test func billedReadsOfATenThousandDocumentQuery() async throws {
        let db = try LiveFirestore.make("poll-cost").settingServerTimestamp(on: "updatedAt")
        for first in stride(from: 0, to: 10_000, by: 500) {
            let batch = db.batch()
            for index in first..<first + 500 {
                try batch.setData(["n": .integer(Int64(index))], forDocument: db.document("cost/d\(index)"))
            }
            try await batch.commit()
        }
        let query = db.collection("cost").query
        let firstKeys = try await PollFetcher(query: query).fetch(mode: .keys, previous: PollState())
        let unchangedKeys = try await PollFetcher(query: query).fetch(mode: .keys, previous: firstKeys.state)
        #expect(firstKeys.statistics.billedReads == 20_000)  // 10,000 names, then a batchGet of all 10,000
        #expect(unchangedKeys.statistics.billedReads == 10_000)
        #expect(unchangedKeys.statistics.documentsFetched == 0)

        let delta = FeedEvents()
        let deltaSnapshots = Mutex<[QuerySnapshot]>([])
        let deltaFeed = query.snapshots(
            source: .poll(.delta(field: "updatedAt", margin: .milliseconds(300))), interval: .seconds(1)
        ) { delta.note($0) }
        let task = Task {
            do {
                for try await snapshot in deltaFeed { deltaSnapshots.withLock { $0.append(snapshot) } }
            } catch {}
        }
        defer { task.cancel() }

        // Unchanged: once the seeding writes are older than the margin, every delta poll is the empty delta request
        // (1 read) and the count of 10,000 (10 reads).
        let settled = await eventually(seconds: 120) {
            let polls = delta.polls.suffix(3)
            return polls.count == 3 && polls.allSatisfy { $0.marginRereads == 0 && $0.keysScan == nil }
        }
        #expect(settled, "delta polls: \(delta.polls.map(\.description))")
        #expect(delta.polls.first?.billedReads == 10_000)  // the first poll reads the whole result
        #expect(delta.polls.suffix(3).map(\.billedReads) == [11, 11, 11])

        // One document changed per poll.
        let unchangedPolls = delta.polls.count
        for change in 0..<3 {
            let before = deltaSnapshots.withLock { $0.count }
            try await db.document("cost/d\(change * 997)").updateData(["n": .integer(Int64(-1 - change))])
            let seen = await eventually(seconds: 60) {
                deltaSnapshots.withLock { $0.count } > before
            }
            #expect(seen, "the change \(change) reached the delta feed")
        }
        let changedPolls = delta.polls.dropFirst(unchangedPolls)
        #expect(changedPolls.count >= 3)
        for poll in changedPolls {
            #expect(poll.keysScan == nil, "\(poll)")
            #expect(poll.billedReads <= 12 + poll.marginRereads, "\(poll)")
            #expect(poll.billedReads == max(1, poll.documentsFetched) + 10, "\(poll)")
        }
        let last = try #require(deltaSnapshots.withLock { $0.last })
        #expect(last.count == 10_000)
        let changed = last.documents.filter { document in
            if case .integer(let n)? = document.get("n") { return n < 0 }
            return false
        }
        #expect(changed.map(\.documentID).sorted() == ["d0", "d1994", "d997"])
        #expect(delta.failures == [])
    }
}
