import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization
import Testing

/// A client that goes away while the list publishes (found by the serve load test, issue 39): `firestore-feed serve`
/// cancels a gone client's task from the connection's thread while the feed's `update` yields the next event to it.
/// Cancelling runs the stream's termination handler under the task's own lock; yielding resumes the waiting task,
/// which takes that lock, and `update` yielded under the list's lock, which the termination handler took: each side
/// held what the other wanted, and the list stopped (every later event, every later client, SIGTERM). No network.
@Suite(.timeLimit(.minutes(1))) struct LiveListCancellationTests {
    static func documents(_ count: Int, version: Int64) -> [Document] {
        (0..<count).map { index in
            Document(
                name: "projects/p/databases/(default)/documents/c/d\(index)", fields: ["v": .integer(version)],
                createTime: Timestamp(date: Date(timeIntervalSince1970: 1)),
                updateTime: Timestamp(date: Date(timeIntervalSince1970: Double(1 + version))))
        }
    }

    /// What the test's threads and tasks report.
    final class Progress: Sendable {
        let started = Atomic(0)
        let cancelled = Atomic(false)
        let updatesDone = Atomic(false)
        init() {}
        var isDone: Bool {
            cancelled.load(ordering: .sequentiallyConsistent) && updatesDone.load(ordering: .sequentiallyConsistent)
        }
    }

    /// 1,000 clients waiting for events, cancelled one by one from a thread of their own while another thread
    /// publishes changes to all of them: every cancellation and every update returns (no lock taken in two orders),
    /// and the list counts no client once they are all gone.
    @Test func clientsCancelledWhileTheListPublishesLetItGoOn() async throws {
        let list = LiveList(capacity: 10, clientBuffer: 10_000, firstEventID: 0)
        let clients = 1_000
        let progress = Progress()
        let tasks = (0..<clients).map { _ in
            Task {
                var events = list.events().makeAsyncIterator()
                _ = await events.next()  // the reset
                progress.started.add(1, ordering: .sequentiallyConsistent)
                while await events.next() != nil {}
            }
        }
        while progress.started.load(ordering: .sequentiallyConsistent) < clients {
            try await Task.sleep(for: .milliseconds(5))
        }

        Thread {
            for task in tasks { task.cancel() }
            progress.cancelled.store(true, ordering: .sequentiallyConsistent)
        }.start()
        Thread {
            var version: Int64 = 0
            while !progress.cancelled.load(ordering: .sequentiallyConsistent) {
                version += 1
                list.update(documents: Self.documents(200, version: version), readTime: nil)
            }
            progress.updatesDone.store(true, ordering: .sequentiallyConsistent)
        }.start()

        // A hang guard, not a speed bound: in a deadlock neither thread ever ends.
        let deadline = ContinuousClock.now + .seconds(40)
        while !progress.isDone, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let cancelled = progress.cancelled.load(ordering: .sequentiallyConsistent)
        let published = progress.updatesDone.load(ordering: .sequentiallyConsistent)
        #expect(cancelled, "the cancelling thread never ended: a deadlock")
        #expect(published, "the publishing thread never ended: a deadlock")
        guard cancelled, published else { return }
        for task in tasks { _ = await task.result }
        list.update(documents: [], readTime: nil)
        #expect(list.clientCount == 0)
    }
}
