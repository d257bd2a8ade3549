import Foundation
import Synchronization
import Testing

@testable import FirestoreWire

/// `BlockingExecutor`'s serial queue: its thread waits for the next job for its idle linger before it ends, so jobs
/// that come one after another run on one thread; each job still runs once, in order.
@Suite(.timeLimit(.minutes(2))) struct BlockingExecutorTests {
    /// Threads of this process whose name (`/proc/self/task/*/comm`) is `name`.
    static func threads(named name: String) -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter { task in
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            return comm?.trimmingCharacters(in: .whitespacesAndNewlines) == name
        }.count
    }

    @Test func jobsThatComeWhileTheThreadWaitsRunOnThatOneThread() async throws {
        let started = Mutex(0)
        // A linger far longer than the test: the thread cannot have ended between two jobs, whatever the load.
        let executor = BlockingExecutor(name: "bex-one-thread", idleLinger: .seconds(600)) {
            started.withLock { $0 += 1 }
        }
        var results: [Int] = []
        for index in 0..<200 {
            results.append(try await executor.run { index * 2 })
        }
        #expect(results == (0..<200).map { $0 * 2 })
        #expect(started.withLock { $0 } == 1)
    }

    @Test func aJobIsLetGoOnceItHasRunThoughTheThreadStillWaits() async throws {
        final class Counted: Sendable {
            static let released = Mutex(0)
            deinit { Self.released.withLock { $0 += 1 } }
        }
        // The thread stays parked for the whole test: what it keeps of the jobs it ran is what stays in memory.
        let executor = BlockingExecutor(name: "bex-release", idleLinger: .seconds(600))
        for _ in 0..<1_000 {
            let held = Counted()
            try await executor.run { withExtendedLifetime(held) {} }
        }
        // Past 256 run jobs a queue that never runs dry lets them go too: one job queued behind 600 others.
        for _ in 0..<600 {
            let held = Counted()
            executor.submit { withExtendedLifetime(held) {} }
        }
        try await executor.run {}
        // Let go when the thread parks after the last job (it has resumed its caller by then): waited for, with the
        // suite's limit as the hang guard; a thread that kept them would never get there.
        while Counted.released.withLock({ $0 }) < 1_600 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(Counted.released.withLock { $0 } == 1_600)
    }

    @Test func theThreadEndsOnceItsLingerPassesWithNoJobAndTheNextJobStartsAnother() async throws {
        let started = Mutex(0)
        let name = "bex-ends"
        let executor = BlockingExecutor(name: name, idleLinger: .milliseconds(10)) { started.withLock { $0 += 1 } }
        #expect(try await executor.run { 1 } == 1)
        // Waits (hang guard: the suite's limit) until the thread has ended.
        while Self.threads(named: name) > 0 { try await Task.sleep(for: .milliseconds(5)) }
        #expect(started.withLock { $0 } == 1)
        #expect(try await executor.run { 2 } == 2)
        #expect(started.withLock { $0 } == 2)
    }

    @Test func everyJobOfManySubmittersRunsOnceInEachSubmittersOrder() async throws {
        // A linger of 20 µs: parks time out all the time, so jobs race the thread's end and the wake-ups.
        let executor = BlockingExecutor(name: "bex-race", idleLinger: .microseconds(20))
        final class Log: Sendable {
            let runs = Mutex<[Int: [Int]]>([:])
            func add(_ index: Int, by submitter: Int) { runs.withLock { $0[submitter, default: []].append(index) } }
        }
        let log = Log()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for submitter in 0..<4 {
                group.addTask {
                    for index in 0..<1_500 {
                        if index % 3 == 0 {
                            // Queued without waiting, as ConsoleWriter.post does.
                            executor.submit { log.add(index, by: submitter) }
                        } else {
                            try await executor.run { log.add(index, by: submitter) }
                        }
                        if index % 100 == 0 { try await Task.sleep(for: .microseconds(50)) }
                    }
                }
            }
            try await group.waitForAll()
        }
        // A job queued behind every other: once it has run, so has each one before it.
        try await executor.run {}
        let runs = log.runs.withLock { $0 }
        #expect(runs.keys.sorted() == [0, 1, 2, 3])
        for submitter in 0..<4 { #expect(runs[submitter] == Array(0..<1_500)) }
    }
}
