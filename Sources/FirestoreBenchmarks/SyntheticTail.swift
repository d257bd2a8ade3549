import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

/// The paced stream a ``SyntheticServerTransport`` Listen call sends after its first snapshot, for
/// `mirror-tail-synthetic`: from ``begin()`` on, every `batchSize / rate` seconds a batch of `batchSize`
/// `DocumentChange`s (new versions of the transport's documents, in turn: ``MirrorLiveWorkload/tailFields(_:seq:version:)``,
/// with a `seq` field numbering the change) followed by a global `NO_CHANGE` with a new resume token and a read time,
/// so the client publishes one snapshot a batch; `seconds` long. A change's `updateTime` and its batch's read time
/// are the batch's scheduled time on the wall clock (what a server committing at `rate` would stamp), so a batch sent
/// late because the client did not take it in time counts its wait in the lag.
final class SyntheticTail: Sendable {
    /// What was sent, for the workload to read.
    struct State: Sendable {
        /// When ``begin()`` was called: the first batch's schedule.
        var start: (instant: ContinuousClock.Instant, date: Date)?
        /// Changes sent (their batches' `NO_CHANGE` included).
        var sent = 0
        /// Batches sent more than one period after their scheduled time.
        var lateBatches = 0
        /// When the last batch was sent.
        var finished: ContinuousClock.Instant?
    }

    let rate: Int
    let batchSize: Int
    let batches: Int
    /// The documents the changes go to, in turn (the transport's `count`).
    let documents: Int
    let state = Mutex(State())

    /// `rate` changes a second in batches of `batchSize` for `seconds`, over `documents` documents.
    init(rate: Int, batchSize: Int, seconds: Double, documents: Int) {
        (self.rate, self.batchSize, self.documents) = (max(rate, 1), max(batchSize, 1), max(documents, 1))
        batches = max(Int(Double(self.rate) * seconds) / self.batchSize, 1)
    }

    /// The time between two batches.
    var period: Duration { .seconds(Double(batchSize) / Double(rate)) }

    /// The changes the whole tail sends.
    var changes: Int { batches * batchSize }

    /// Starts the schedule: the first batch is due now (the instant returned).
    @discardableResult
    func begin() -> ContinuousClock.Instant {
        let start = (instant: ContinuousClock.now, date: Date())
        state.withLock { $0.start = start }
        return start.instant
    }

    /// One Listen call's walk through the tail.
    struct Pacer: Sendable {
        let tail: SyntheticTail
        /// The next batch.
        var batch = 0
        /// The current batch's messages not yet returned, last first.
        var pending: [ListenResponse] = []

        init(_ tail: SyntheticTail) { self.tail = tail }

        /// The next message for target `targetID`, waiting for ``SyntheticTail/begin()`` and for the batch's time;
        /// `nil` once the tail is over. Throws `.cancelled` once `isEnded()` (checked every few milliseconds while
        /// waiting).
        mutating func next(targetID: Int32, isEnded: @Sendable () -> Bool) async throws -> ListenResponse? {
            if let message = pending.popLast() { return message }
            guard batch < tail.batches else {
                let now = ContinuousClock.now
                tail.state.withLock { $0.finished = $0.finished ?? now }
                return nil
            }
            var start = tail.state.withLock { $0.start }
            while start == nil {
                guard !isEnded() else { throw SyntheticListenCall.Iterator.cancelled }
                try await Task.sleep(for: .milliseconds(5))
                start = tail.state.withLock { $0.start }
            }
            guard let start else { return nil }
            let offset = tail.period * batch
            let due = start.instant + offset
            while ContinuousClock.now < due {
                guard !isEnded() else { throw SyntheticListenCall.Iterator.cancelled }
                try await Task.sleep(until: min(due, .now + .milliseconds(5)), clock: .continuous)
            }
            let late = ContinuousClock.now - due > tail.period
            let stamp = Timestamp(date: start.date.addingTimeInterval(ListenSupport.seconds(offset)))
            var messages: [ListenResponse] = []
            for change in batch * tail.batchSize..<(batch + 1) * tail.batchSize {
                messages.append(try tail.change(change, at: stamp, targetID: targetID))
            }
            messages.append(try SyntheticTail.snapshot(batch: batch, at: stamp))
            pending = messages.reversed()
            batch += 1
            let count = tail.batchSize
            tail.state.withLock {
                $0.sent += count
                if late { $0.lateBatches += 1 }
            }
            return pending.popLast()
        }
    }

    /// Change number `change`: a new version of document `change % documents` committed at `time`, as the
    /// `DocumentChange` of target `targetID`, decoded from its protobuf bytes.
    func change(_ change: Int, at time: Timestamp, targetID: Int32) throws -> ListenResponse {
        let index = change % documents
        let document = Document(
            name: "\(SyntheticServerTransport.root)/\(SyntheticServerTransport.collection)/"
                + SyntheticServerTransport.id(index),
            fields: MirrorLiveWorkload.tailFields(index, seq: change, version: change / documents + 1),
            createTime: SyntheticServerTransport.readTime, updateTime: time)
        var writer = ProtobufWriter()
        writer.writeMessageField(3) { message in
            message.writeMessageField(1) { document.writeProtobuf(to: &$0) }
            message.writeInt32Field(5, targetID)
        }
        return try ListenResponse(protobuf: writer.bytes)
    }

    /// The global `NO_CHANGE` closing batch `batch`: a resume token of its own and the read time `time`.
    static func snapshot(batch: Int, at time: Timestamp) throws -> ListenResponse {
        var writer = ProtobufWriter()
        writer.writeMessageField(2) { change in
            change.writeBytesField(4, [9] + withUnsafeBytes(of: UInt64(batch).bigEndian, Array.init))
            change.writeMessageField(6) { time.writeProtobuf(to: &$0) }
        }
        return try ListenResponse(protobuf: writer.bytes)
    }
}
