import FirestoreREST
import Foundation
import Synchronization

/// `transaction-contention` (issue 19): `tasks` tasks spread over `clients` clients each increment one counter
/// `increments` times with `runTransaction` against the real emulator (default `CurlTransport`, 8 connections per
/// client). Prints how many transactions committed (target: all, and the counter exact), how many attempts they
/// took and how long the whole run took. Before the fix 10 × 10 on one client ended with the counter at 1 and 99
/// transactions failed. Tasks of one client take turns on the counter (`TransactionLocks`); tasks of different
/// clients meet on the server, lose to its lock timeout and retry after the back-off.
enum TransactionContentionWorkload {
    struct Figures: Sendable {
        var committed = 0
        var failed = 0
        var attempts = 0
        var counter: Int64 = -1
        var seconds = 0.0
    }

    final class Tally: Sendable {
        let figures = Mutex(Figures())
    }

    static func run(shapes: [(tasks: Int, increments: Int, clients: Int)]) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "transaction-contention") else { return [] }
        for shape in shapes {
            let figures = try contend(
                host: host, tasks: shape.tasks, increments: shape.increments, clients: shape.clients)
            let total = shape.tasks * shape.increments
            let met = figures.committed == total && figures.counter == Int64(total)
            let on = shape.clients == 1 ? "one client" : "\(shape.clients) clients"
            let verdict = ListenSupport.verdict(
                met, goal: "transaction-contention: \(shape.tasks) tasks x \(shape.increments) increments on \(on)",
                figure: "\(figures.committed)/\(total) committed, counter \(figures.counter)", target: "all, exact")
            print(
                "transaction-contention n=\(total)  \(shape.tasks) tasks x \(shape.increments) increments on \(on): "
                    + "\(figures.committed)/\(total) committed, counter \(figures.counter) (target all and "
                    + "exact: \(verdict)), \(figures.attempts) attempts, "
                    + String(format: "%.2f s", figures.seconds))
            if !met {
                print("CHECK FAILED: transaction-contention: \(figures.committed)/\(total), counter \(figures.counter)")
            }
            print(
                #"{"workload":"transaction-contention","n":\#(total),"tasks":\#(shape.tasks),"#
                    + #""increments":\#(shape.increments),"clients":\#(shape.clients),"#
                    + #""committed":\#(figures.committed),"#
                    + #""failed":\#(figures.failed),"attempts":\#(figures.attempts),"counter":\#(figures.counter),"#
                    + #""seconds":\#(figures.seconds)}"#)
        }
        return []
    }

    static func contend(host: String, tasks: Int, increments: Int, clients: Int) throws -> Figures {
        let project = ListenSupport.projectID("contention")
        let databases = try (0..<max(clients, 1)).map { _ in try Firestore.emulator(host: host, projectID: project) }
        let counter = databases[0].document("counters/c")
        let tally = Tally()
        return try blocking {
            try await counter.setData(["n": 0])
            let start = ContinuousClock.now
            await withTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    let db = databases[task % databases.count]
                    let counter = db.document("counters/c")
                    group.addTask {
                        for _ in 0..<increments {
                            do {
                                try await db.runTransaction { transaction in
                                    tally.figures.withLock { $0.attempts += 1 }
                                    let snapshot = try await transaction.getDocument(counter)
                                    guard case .integer(let value)? = snapshot.get("n") else {
                                        throw BenchmarkError(message: "counter holds no integer")
                                    }
                                    try transaction.updateData(["n": .integer(value + 1)], forDocument: counter)
                                }
                                tally.figures.withLock { $0.committed += 1 }
                            } catch {
                                tally.figures.withLock { $0.failed += 1 }
                            }
                        }
                    }
                }
            }
            let elapsed = ListenSupport.seconds(ContinuousClock.now - start)
            var result = tally.figures.withLock { $0 }
            result.seconds = elapsed
            if case .integer(let value)? = try await counter.getDocument().get("n") { result.counter = value }
            return result
        }
    }
}
