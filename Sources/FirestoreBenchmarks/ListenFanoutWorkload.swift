import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization

/// `listen-fanout` (issue 15): many listeners of one query on one client share one Listen target on one stream
/// (checked: one target, one active gRPC call); then the time from the start of a write to every listener having
/// received it, and the process CPU time per change (`getrusage`), over a number of changes. The CPU time of
/// the same writes with no listener is measured first, so the share of the fan-out shows.
enum ListenFanoutWorkload {
    /// Counts, per key, the listeners that received it, and wakes whoever waits for all of them.
    final class Tracker: Sendable {
        struct State {
            var counts: [Int64: Int] = [:]
            var done: [Int64: ContinuousClock.Instant] = [:]
            var waiters: [Int64: CheckedContinuation<ContinuousClock.Instant, Never>] = [:]
        }

        /// The key of a listener's first snapshot.
        static let initial = Int64.min
        let listeners: Int
        let state = Mutex(State())

        init(listeners: Int) { self.listeners = listeners }

        func received(_ key: Int64) {
            let now = ContinuousClock.now
            let waiter = state.withLock { state -> CheckedContinuation<ContinuousClock.Instant, Never>? in
                state.counts[key, default: 0] += 1
                guard state.counts[key] == listeners else { return nil }
                state.done[key] = now
                return state.waiters.removeValue(forKey: key)
            }
            waiter?.resume(returning: now)
        }

        /// When the last listener received `key`.
        func allReceived(_ key: Int64) async -> ContinuousClock.Instant {
            await withCheckedContinuation { continuation in
                let done = state.withLock { state -> ContinuousClock.Instant? in
                    if let done = state.done[key] { return done }
                    state.waiters[key] = continuation
                    return nil
                }
                if let done { continuation.resume(returning: done) }
            }
        }
    }

    static func run(listeners: Int, changes: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "listen-fanout") else { return [] }
        let db = try Firestore.emulator(host: host, projectID: ListenSupport.projectID("fanout"))
        let collection = db.collection("fanout")
        let probe = collection.document("probe")
        let tracker = Tracker(listeners: listeners)
        let clock = ContinuousClock()
        struct Figures: Sendable {
            var aloneCPU = 0.0
            var aloneRTT: [Double] = []
            var targets = 0
            var calls = 0
            var joined = 0.0
            var fanout: [Double] = []
            var writes: [Double] = []
            var cpu = 0.0
        }
        let figures = try blocking { () async throws -> Figures in
            var result = Figures()
            try await probe.setData(["seq": .integer(-1)])
            // The same writes with no listener: their own CPU time and round trip.
            let aloneStart = ListenSupport.cpuSeconds()
            for change in 0..<changes {
                let start = clock.now
                try await probe.setData(["seq": .integer(Int64(-2 - change))])
                result.aloneRTT.append(ListenSupport.seconds(clock.now - start))
            }
            result.aloneCPU = (ListenSupport.cpuSeconds() - aloneStart) / Double(changes)

            let joinStart = clock.now
            var tasks: [Task<Void, Never>] = []
            for _ in 0..<listeners {
                let feed = collection.snapshots(source: .listen)
                tasks.append(
                    Task {
                        var isFirst = true
                        do {
                            for try await snapshot in feed {
                                if isFirst {
                                    isFirst = false
                                    tracker.received(Tracker.initial)
                                    continue
                                }
                                for change in snapshot.documentChanges {
                                    if case .integer(let seq)? = change.document.get("seq") { tracker.received(seq) }
                                }
                            }
                        } catch {
                            print("listen-fanout: a listener ended with \(error)")
                        }
                    })
            }
            defer { for task in tasks { task.cancel() } }
            result.joined = ListenSupport.seconds(await tracker.allReceived(Tracker.initial) - joinStart)
            let stream = WatchStreamPool.shared.stream(for: db)
            result.targets = stream?.targetCount ?? 0
            result.calls = stream?.channel.activeCallCount ?? 0

            let cpuStart = ListenSupport.cpuSeconds()
            for change in 0..<changes {
                let start = clock.now
                try await probe.setData(["seq": .integer(Int64(change))])
                result.writes.append(ListenSupport.seconds(clock.now - start))
                result.fanout.append(ListenSupport.seconds(await tracker.allReceived(Int64(change)) - start))
            }
            result.cpu = (ListenSupport.cpuSeconds() - cpuStart) / Double(changes)
            return result
        }
        let p = ListenSupport.percentile
        let ms = ListenSupport.ms
        let shared = figures.targets == 1 && figures.calls == 1
        let verdict = ListenSupport.verdict(
            shared, goal: "listen-fanout: targets and gRPC calls for \(listeners) listeners of one query",
            figure: "\(figures.targets) and \(figures.calls)", target: "exactly 1 and 1")
        print(
            "listen-fanout: \(listeners) listeners joined in \(ms(figures.joined)); \(figures.targets) target(s), "
                + "\(figures.calls) active gRPC call(s) (target exactly 1 and 1: \(verdict))")
        if !shared {
            print("CHECK FAILED: listen-fanout: \(figures.targets) targets, \(figures.calls) calls for one query")
        }
        print(
            "listen-fanout n=\(listeners)  \(changes) changes: write to all listeners median \(ms(p(figures.fanout, 0.5)))"
                + "  p90 \(ms(p(figures.fanout, 0.9)))  max \(ms(p(figures.fanout, 1)))  CPU per change "
                + "\(ms(figures.cpu))  (the write alone: round trip median \(ms(p(figures.writes, 0.5))), with no "
                + "listener \(ms(p(figures.aloneRTT, 0.5))) and CPU \(ms(figures.aloneCPU)))")
        print(
            #"{"workload":"listen-fanout","n":\#(listeners),"changes":\#(changes),"targets":\#(figures.targets),"#
                + #""active_calls":\#(figures.calls),"join_s":\#(figures.joined),"#
                + #""median_s":\#(p(figures.fanout, 0.5)),"p90_s":\#(p(figures.fanout, 0.9)),"#
                + #""max_s":\#(p(figures.fanout, 1)),"cpu_per_change_s":\#(figures.cpu),"#
                + #""write_rtt_median_s":\#(p(figures.writes, 0.5)),"write_alone_cpu_s":\#(figures.aloneCPU)}"#)
        return []
    }
}
