import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// Issue 18 against the real emulator: the quirk the margin exists for, delta polling giving the first issue's
/// changes, and a delta feed and a keys feed under a writer that stamps every write both ending equal to a direct
/// query with no spurious change.
@Suite(.timeLimit(.minutes(3))) struct DeltaPollingLiveTests {
    /// The emulator quirk: the server time a commit writes into a `REQUEST_TIME` field precedes the commit time
    /// (the document's `updateTime`), so a write whose field time is before a poll's `readTime` can commit after it.
    @Test func serverTimePrecedesTheCommit() async throws {
        let db = try LiveFirestore.make("delta-quirk").settingServerTimestamp(on: "updatedAt")
        var gaps: [Duration] = []
        for index in 0..<20 {
            let document = db.document("quirk/q\(index % 4)")
            try await document.setData(["n": .integer(Int64(index))])
            let snapshot = try await document.getDocument()
            guard case .timestamp(let field)? = snapshot.get("updatedAt"), let commit = snapshot.updateTime else {
                Issue.record("no updatedAt timestamp or updateTime in \(snapshot)")
                return
            }
            gaps.append(commit.duration(since: field))
        }
        // Never after the commit; before it by up to tens of milliseconds on a loaded machine (the field has
        // millisecond precision). How big the gap is depends on how busy the emulator is between taking the request
        // time and committing, so an idle machine can show no gap at all: the rule is the order and the margin,
        // and the largest gap is a figure.
        print("delta quirk: largest gap between the request time and the commit of 20 writes: \(gaps.max() ?? .zero)")
        #expect(gaps.allSatisfy { $0 >= .zero }, "gaps \(gaps)")
        #expect(gaps.allSatisfy { $0 < .seconds(5) }, "the default margin (5 s) covers every gap: \(gaps)")
    }

    /// Delta polling gives the first issue's changes, indexes included, with writes through the stamping client.
    @Test func theFirstScenarioGivesTheSameChanges() async throws {
        let events = FeedEvents()
        let delta = try await FeedModesLiveTests.scenario(
            .poll(.delta(field: "updatedAt", margin: .milliseconds(500)))
        ) { events.note($0) }
        #expect(delta.changes == FeedModesLiveTests.expected)
        let polls = events.polls
        #expect(polls.first?.keysScan == .firstPoll)
        #expect(polls.first?.billedReads == 3)
        // The date leaving the result and the fig's deletion each change the count, so those polls scan.
        let countScans = polls.filter { if case .countDiffers = $0.keysScan { true } else { false } }
        #expect(countScans.count == 2, "\(polls.map(\.description))")
        #expect(events.failures == [])
    }

    /// A writer changing, adding, moving out of and into the result and deleting documents, every write stamped by
    /// the client option, while a keys feed and a delta feed poll: both end equal to a direct query, every change
    /// each feed published applies to its previous list, and no change is spurious (a document is modified only
    /// when its `updateTime` moved).
    @Test(arguments: [false, true])
    func bothModesEndEqualToADirectQuery(limited: Bool) async throws {
        let db = try LiveFirestore.make("delta-diff").settingServerTimestamp(on: "updatedAt")
        let items = db.collection("items")
        for index in 0..<20 {
            try await items.document("i\(index)").setData([
                "group": index % 3 == 0 ? "b" : "a", "rank": .integer(Int64(index)),
            ])
        }
        var query = items.whereField("group", isEqualTo: "a").order(by: "rank")
        if limited { query = query.limit(to: 6) }
        let keys = FeedRecord()
        let delta = FeedRecord()
        let feeds = [
            (keys, query.snapshots(source: .poll(.keys), interval: .milliseconds(100)) { keys.events.note($0) }),
            (
                delta,
                // The default margin (5 s), which covers the gap between a write's request time and its commit
                // however loaded the emulator is (`serverTimePrecedesTheCommit`); a smaller one can miss a
                // modification for good when the machine is slow.
                query.snapshots(source: .poll(.delta(field: "updatedAt")), interval: .milliseconds(100)) {
                    delta.events.note($0)
                }
            ),
        ]
        let tasks = feeds.map { record, stream in
            Task {
                do {
                    for try await snapshot in stream { record.apply(snapshot) }
                } catch {
                    record.problems.withLock { $0.append("the feed ended: \(error)") }
                }
            }
        }
        defer { for task in tasks { task.cancel() } }
        var random = SystemRandomNumberGenerator()
        var next = 20
        for _ in 0..<60 {
            let id = "i\(Int.random(in: 0..<next, using: &random))"
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                try await items.document("i\(next)").setData([
                    "group": "a", "rank": .integer(Int64.random(in: 0..<40, using: &random)),
                ])
                next += 1
            case 1, 2:
                try await items.document(id).setData(
                    ["group": "a", "rank": .integer(Int64.random(in: 0..<40, using: &random))], merge: true)
            case 3:
                try await items.document(id).setData(["group": Bool.random(using: &random) ? "a" : "b"], merge: true)
            case 4:
                try await items.document(id).delete()
            default:
                try await Task.sleep(for: .milliseconds(Int.random(in: 20..<150, using: &random)))
            }
        }
        let truth = try await query.getDocuments().documents.map(FeedRecord.key)
        let settled = await eventually(seconds: 60) { keys.current == truth && delta.current == truth }
        #expect(settled, "keys \(keys.current)\ndelta \(delta.current)\ntruth \(truth)")
        #expect(keys.problems.withLock { $0 } == [])
        #expect(delta.problems.withLock { $0 } == [])
        // At least ten delta polls (the writes may all be made within a second; the feeds keep polling meanwhile).
        #expect(await eventually(seconds: 60) { delta.events.polls.count >= 10 })
        let polls = delta.events.polls
        #expect(polls.compactMap(\.drift).allSatisfy { $0 == 0 })
        #expect(delta.events.failures == [])
    }
}

/// A feed's snapshots applied one after another: each change list must turn the previous list into the new one,
/// and a modification must move the document's `updateTime`.
final class FeedRecord: Sendable {
    let events = FeedEvents()
    let problems = Mutex<[String]>([])
    private let list = Mutex<[String]>([])

    /// `id@updateTime`.
    static func key(_ snapshot: DocumentSnapshot) -> String {
        "\(snapshot.documentID)@\(snapshot.updateTime?.rfc3339 ?? "-")"
    }

    var current: [String] { list.withLock { $0 } }

    func apply(_ snapshot: QuerySnapshot) {
        list.withLock { list in
            var working = list
            for change in snapshot.documentChanges {
                let key = Self.key(change.document)
                switch change.type {
                case .removed:
                    guard let old = change.oldIndex, working.indices.contains(old),
                        working[old].hasPrefix(change.document.documentID + "@")
                    else { return note("removal of \(key) at \(change.oldIndex ?? -1) does not apply to \(working)") }
                    working.remove(at: old)
                case .added:
                    guard let new = change.newIndex, new <= working.count,
                        !working.contains(where: { $0.hasPrefix(change.document.documentID + "@") })
                    else { return note("addition of \(key) at \(change.newIndex ?? -1) does not apply to \(working)") }
                    working.insert(key, at: new)
                case .modified:
                    guard let old = change.oldIndex, let new = change.newIndex, working.indices.contains(old),
                        working[old].hasPrefix(change.document.documentID + "@")
                    else { return note("modification of \(key) does not apply to \(working)") }
                    if working[old] == key { note("spurious modification of \(key)") }
                    working.remove(at: old)
                    guard new <= working.count else { return note("modification of \(key) to \(new) out of range") }
                    working.insert(key, at: new)
                }
            }
            if working != snapshot.documents.map(Self.key) {
                note("changes give \(working), the snapshot lists \(snapshot.documents.map(Self.key))")
            }
            list = snapshot.documents.map(Self.key)
        }
    }

    private func note(_ problem: String) { problems.withLock { $0.append(problem) } }
}
