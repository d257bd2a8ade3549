import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

/// Reading a checkpoint while a feed writes it (another store on the same file, as another process has it): the
/// checkpoint read is the one of a single commit, never the feed row of one and the document rows of the next.
/// Found by `CheckpointCrashLiveTests` (its final round polls the store while the restarted watch writes): "key
/// \"crash\": 12 document rows, the feed row says 13; the file is damaged" for a file that was not.
@Suite(.timeLimit(.minutes(2))) struct CheckpointConcurrentReadTests {
    static let root = "projects/p/databases/(default)/documents/items/"

    /// A document `items/d<index>` at update time `index` s.
    static func document(_ index: Int) throws -> Document {
        let time = try Timestamp(seconds: Int64(1_000 + index), nanos: 0)
        return Document(
            name: root + "d\(index)", fields: ["v": .integer(Int64(index))], createTime: time, updateTime: time)
    }

    /// A commit of key `k` with `changes`, holding `count` documents.
    static func commit(_ changes: [CheckpointCommit.Change], count: Int, second: Int64) throws -> CheckpointCommit {
        CheckpointCommit(
            key: "k", query: "q", source: "keys", deltaField: nil,
            readTime: try Timestamp(seconds: 2_000 + second, nanos: 0),
            deltaWatermark: nil, lastKeysScan: nil, resumeToken: nil, changes: changes, documentCount: count)
    }

    /// The exact sequence: the reader has read the feed row of generation 1 (13 documents) when another connection
    /// commits generation 2 (d12 removed, 12 documents); the reader then reads the document rows. Before the read
    /// transaction it saw the new rows under the old feed row: "12 document rows, the feed row says 13; the file is
    /// damaged". Now it reads generation 1 whole, and the next read generation 2.
    @Test func aCommitBetweenTheFeedRowAndTheDocumentRowsIsNotSeenByThatRead() async throws {
        let path = CheckpointFiles.temporaryPath("concurrent-read")
        defer { CheckpointFiles.remove(path) }
        let store = try await FeedCheckpointStore(path: path)
        let all = try Self.commit((0..<13).map { .put(try Self.document($0)) }, count: 13, second: 0)
        let removal = try Self.commit([.remove(name: Self.root + "d12")], count: 12, second: 1)
        let (during, generation, after) = try await store.run {
            connection throws(FirestoreError) -> (FeedCheckpoint?, Int64, FeedCheckpoint?) in
            _ = try CheckpointRows.write(all, expectedGeneration: 0, committedAt: .now(), to: connection)
            let other = try SQLiteConnection(path: path)
            var generation: Int64 = 0
            let during = try CheckpointRows.load(key: "k", from: connection) { () throws(FirestoreError) in
                generation = try CheckpointRows.write(removal, expectedGeneration: 1, committedAt: .now(), to: other)
            }
            return (during, generation, try CheckpointRows.load(key: "k", from: connection))
        }
        #expect(generation == 2)
        #expect(during?.generation == 1)
        #expect(during?.documents.map(\.id) == (0..<13).map { "d\($0)" }.sorted())
        #expect(during?.readTime == all.readTime)
        #expect(after?.generation == 2)
        #expect(after?.documents.map(\.id) == (0..<12).map { "d\($0)" }.sorted())
        #expect(after?.readTime == removal.readTime)
    }

    /// The race as the crash test met it, through the public reader: one store writes 13 documents, then removes
    /// and puts back the last one again and again; another store on the file reads the checkpoint meanwhile. Every
    /// read is one commit's: 13 documents, or 12 (before the fix, about 1 read in 20 failed as "damaged").
    ///
    /// The reads go on until there were at least 2,000 of them and at least 20 commits were made after the first
    /// one began, so the reads overlap the writes however the two tasks are scheduled.
    @Test func aCheckpointReadWhileAnotherStoreWritesIsOneCommits() async throws {
        let path = CheckpointFiles.temporaryPath("concurrent-read")
        defer { CheckpointFiles.remove(path) }
        let writer = try await FeedCheckpointStore(path: path)
        let chain = CheckpointChain()
        chain.start(at: 0)
        try await writer.write(
            Self.commit((0..<13).map { .put(try Self.document($0)) }, count: 13, second: 0), chain: chain)
        let reader = try await FeedCheckpointStore(path: path)
        let done = Atomic(false)
        let written = Atomic(0)
        let writing = Task {
            var second: Int64 = 1
            while !done.load(ordering: .sequentiallyConsistent) {
                let change: CheckpointCommit.Change =
                    second.isMultiple(of: 2) ? .put(try Self.document(12)) : .remove(name: Self.root + "d12")
                try await writer.write(
                    Self.commit([change], count: second.isMultiple(of: 2) ? 13 : 12, second: second), chain: chain)
                written.add(1, ordering: .sequentiallyConsistent)
                second += 1
            }
        }
        var failures = 0
        var firstFailure: String?
        var mismatched: [String] = []
        var reads = 0
        let writtenBefore = written.load(ordering: .sequentiallyConsistent)
        // The 60 s are a guard against a writer that stopped (it throws then), never a measure of speed.
        let deadline = ContinuousClock.now + .seconds(60)
        while reads < 2_000 || written.load(ordering: .sequentiallyConsistent) - writtenBefore < 20,
            ContinuousClock.now < deadline
        {
            reads += 1
            do {
                let checkpoint = try #require(try await reader.checkpoint(key: "k"))
                // Generation g holds 13 documents when g is odd (the first commit, then every put back).
                let expected = checkpoint.generation % 2 == 1 ? 13 : 12
                if checkpoint.documents.count != expected {
                    mismatched.append("generation \(checkpoint.generation): \(checkpoint.documents.count) documents")
                }
            } catch {
                failures += 1
                if firstFailure == nil { firstFailure = "\(error)" }
            }
        }
        let overlapping = written.load(ordering: .sequentiallyConsistent) - writtenBefore
        done.store(true, ordering: .sequentiallyConsistent)
        try await writing.value
        #expect(failures == 0, "of \(reads) reads, the first: \(firstFailure ?? "")")
        #expect(mismatched == [])
        // The reads overlapped the writes: at least 20 commits were made between the start of the first read and
        // the end of the last.
        #expect(reads >= 2_000)
        #expect(overlapping >= 20)
    }
}
