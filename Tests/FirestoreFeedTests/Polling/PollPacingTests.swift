import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeed

/// A poller that cannot keep its interval says so (issue 19 item 5: 200 pollers on one client polled every
/// ~1.7 s instead of 0.2 s, without a word).
@Suite(.timeLimit(.minutes(2))) struct PollPacingTests {
    @Test func threeLatePollsInARowAreReportedWithTheirMeanPeriod() {
        var pacing = PollPacing()
        let interval = Duration.milliseconds(200)
        #expect(pacing.record(latency: .milliseconds(300), delay: interval) == nil)
        #expect(pacing.record(latency: .milliseconds(400), delay: interval) == nil)
        #expect(
            pacing.record(latency: .milliseconds(500), delay: interval)
                == .intervalNotKept(interval: interval, actual: .milliseconds(600)))
        // Still late: the next report only after 30 s of such polls (50 more of 600 ms).
        for _ in 0..<49 { #expect(pacing.record(latency: .milliseconds(400), delay: interval) == nil) }
        #expect(
            pacing.record(latency: .milliseconds(400), delay: interval)
                == .intervalNotKept(interval: interval, actual: .milliseconds(600)))
    }

    @Test func aPollOnTimeEndsTheStreak() {
        var pacing = PollPacing()
        let interval = Duration.seconds(1)
        #expect(pacing.record(latency: .seconds(2), delay: interval) == nil)
        #expect(pacing.record(latency: .seconds(2), delay: interval) == nil)
        #expect(pacing.record(latency: .milliseconds(5), delay: interval) == nil)
        #expect(pacing.record(latency: .seconds(2), delay: interval) == nil)
        #expect(pacing.record(latency: .seconds(2), delay: interval) == nil)
        #expect(
            pacing.record(latency: .seconds(2), delay: interval)
                == .intervalNotKept(interval: interval, actual: .seconds(3)))
        // Equal to the interval is on time.
        var exact = PollPacing()
        for _ in 0..<5 { #expect(exact.record(latency: interval, delay: interval) == nil) }
    }

    /// Answers every runQuery after 60 ms (real time) with the same empty result, and records the priorities.
    final class SlowTransport: HTTPTransport {
        let priorities = Mutex<[HTTPRequest.Priority]>([])
        func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
            priorities.withLock { $0.append(request.priority) }
            do {
                try await Task.sleep(for: .milliseconds(60))
            } catch {
                throw FirestoreError(wrapping: error)
            }
            return HTTPResponse(status: 200, body: Data(RunQueryBody.make(readTime: "2024-05-01T00:00:01Z", []).utf8))
        }
    }

    /// Polls that take 60 ms with a 10 ms interval: the feed reports the interval it cannot keep, and its
    /// requests go out as background work.
    @Test func aSlowFeedReportsItsRealInterval() async throws {
        let transport = SlowTransport()
        let db = try Firestore.offline(transport: transport)
        let events = ErrorLog()
        let feed = PollerPool(clock: ImmediateClock()).snapshots(
            of: db.collection("fruits").query, mode: .keys,
            policy: PollingPolicy(interval: .milliseconds(10), jitter: 0)
        ) { events.append($0) }
        let consumer = Task { for try await _ in feed {} }
        defer { consumer.cancel() }
        var late: (interval: Duration, actual: Duration)?
        for _ in 0..<3000 where late == nil {
            for case .intervalNotKept(let interval, let actual) in events.all { late = (interval, actual) }
            if late == nil { try await Task.sleep(for: .milliseconds(10)) }
        }
        let reported = try #require(late)
        #expect(reported.interval == .milliseconds(10))
        #expect(reported.actual >= .milliseconds(70))
        #expect(transport.priorities.withLock { $0.allSatisfy { $0 == .background } })
        #expect(transport.priorities.withLock { $0.count } >= 3)
    }
}
