// Shuts a client down while it is busy and prints what ended how, and what of the client is left in this process
// (issue 27). `ShutdownLiveTests` runs it against the emulator and compares its output with written-out lines; the
// figures (thread, descriptor and socket counts) go to stderr.
//
// Usage: ShutdownCheck HOST:PORT PROJECT
//
// A process of its own, so that the census of threads and descriptors (`/proc/self`) sees this client only, not
// the other tests of the test process. A second client (`holder`) made before the baseline holds the transaction
// locks that keep two commits in flight; it is shut down too before the last census, so the process must be back to
// its baseline: no thread, descriptor or socket to the emulator that was not there before, and no child process.
import FirestoreFeed
import FirestoreREST
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let host = arguments.first, let project = arguments.last,
    let port = host.split(separator: ":").last.flatMap({ Int($0) })
else {
    FileHandle.standardError.write(Data("usage: ShutdownCheck HOST:PORT PROJECT\n".utf8))
    exit(2)
}

func describe(_ error: any Error) -> String {
    if let error = error as? FirestoreError { return "\(error.code.rawValue): \(error.message)" }
    return "\(error)"
}

func figures(_ label: String, _ census: ProcessCensus) {
    FileHandle.standardError.write(
        Data(
            ("figures: \(label): \(census.threads.count) threads, \(census.descriptors.count) descriptors, "
                + "\(census.socketsToPort) sockets to the emulator, \(census.children.count) children\n").utf8))
}

/// Follows a feed: `first` fires at its first snapshot; the task returns how it ended.
func follow(_ feed: AsyncThrowingStream<QuerySnapshot, any Error>, first: Signal) -> Task<String, Never> {
    Task {
        do {
            for try await _ in feed { first.fire() }
            return "finished without an error"
        } catch {
            return describe(error)
        }
    }
}

// The holder, and the process's one-time setup (the Swift runtime's threads, libcurl, OpenSSL), before the baseline.
let holder = try Firestore.emulator(host: host, projectID: project)
try await holder.document("locks/grpc").setData(["n": 0])
try await holder.using(protocol: .rest).document("locks/rest").setData(["n": 0])
let batch = holder.batch()
let filler = String(repeating: "x", count: 2_000)
for number in 0..<300 {
    try batch.setData(
        ["n": .integer(Int64(number)), "filler": .string(filler)], forDocument: holder.document("fruits/f\(number)"))
}
_ = try await batch.commit()
try await Task.sleep(for: .milliseconds(200))
let before = ProcessCensus.take(port: port)
figures("before the client", before)

let db = try Firestore.emulator(host: host, projectID: project)

// A Listen feed and a polling feed, each past its first snapshot.
let listenFirst = Signal()
let pollFirst = Signal()
let listenFeed = follow(db.collection("fruits").whereField("n", isLessThan: 10).snapshots(), first: listenFirst)
let pollFeed = follow(
    db.collection("fruits").whereField("n", isLessThan: 10).snapshots(
        source: .poll(.keys), interval: .milliseconds(200)),
    first: pollFirst)
await listenFirst.wait()
await pollFirst.wait()

// A REST stream of 300 documents (about 600 kB), held after its first document: its transfer waits for the reader.
let streamStarted = Signal()
let shutdownBegan = Signal()
let restStream = Task { () -> String in
    var iterator = db.using(protocol: .rest).collection("fruits").stream().makeAsyncIterator()
    do {
        _ = try await iterator.next()
        streamStarted.fire()
        await shutdownBegan.wait()
        while try await iterator.next() != nil {}
        return "finished without an error"
    } catch {
        streamStarted.fire()
        return describe(error)
    }
}
await streamStarted.wait()

// Two commits, one over gRPC and one over REST, kept waiting by the holder's transaction, which read (and so locked)
// their documents. The emulator aborts a commit after about 2 s of waiting ("Transaction lock timeout."): the census
// is taken while they wait, then, if either has ended (a loaded machine can take that long between two steps), the
// locks are released and both tried again with a new transaction, until both are in flight when the shutdown begins
// (the process's own timeout is the hang guard).
var commits: [Task<String, Never>] = []
var release = Signal()
var holding: Task<Void, Never>?
var during = ProcessCensus.take(port: port)
var attempts = 0
while true {
    attempts += 1
    let locked = Signal()
    let released = Signal()
    release = released
    holding = Task {
        _ = try? await holder.runTransaction(maxAttempts: 1) { transaction in
            _ = try await transaction.getDocument(holder.document("locks/grpc"))
            _ = try await transaction.getDocument(holder.document("locks/rest"))
            locked.fire()
            await released.wait()
        }
        locked.fire()
    }
    await locked.wait()
    let ended = [Signal(), Signal()]
    commits = zip([FirestoreProtocol.grpc, .rest], ["locks/grpc", "locks/rest"]).enumerated().map { index, call in
        Task {
            defer { ended[index].fire() }
            do {
                try await db.using(protocol: call.0).document(call.1).setData(["n": 1])
                return "written"
            } catch {
                return describe(error)
            }
        }
    }
    try await Task.sleep(for: .milliseconds(300))
    during = ProcessCensus.take(port: port)
    if !ended[0].hasFired && !ended[1].hasFired { break }
    released.fire()
    await holding?.value
    for commit in commits { _ = await commit.value }
}
FileHandle.standardError.write(Data("figures: both commits in flight at attempt \(attempts)\n".utf8))
figures("with the client busy", during)

let started = ContinuousClock.now
shutdownBegan.fire()
await db.shutdown()
let took = ContinuousClock.now - started
FileHandle.standardError.write(Data("figures: shutdown() took \(took)\n".utf8))

print("listen feed: \(await listenFeed.value)")
print("polling feed: \(await pollFeed.value)")
print("REST stream: \(await restStream.value)")
print("gRPC commit: \(await commits[0].value)")
print("REST commit: \(await commits[1].value)")
do {
    _ = try await db.document("fruits/f1").getDocument()
    print("a read after shutdown: succeeded")
} catch {
    print("a read after shutdown: \(describe(error))")
}
do {
    for try await _ in db.collection("fruits").snapshots() { break }
    print("a feed after shutdown: delivered")
} catch {
    print("a feed after shutdown: \(describe(error))")
}
await db.shutdown()
print("shutdown again: returned, isShutDown \(db.isShutDown)")

release.fire()
await holding?.value
await holder.shutdown()

// The threads signal their end just before they exit: allow them a moment. Compared: the threads the package names
// (`CurlTransport`, `CurlStream`, `GRPCChannel ...`, `gRPC connect`), not the main thread or the Swift runtime's
// workers, which libdispatch names after its queues (`com.apple.root.default-qos`, 15 bytes kept) and starts and
// ends as it likes.
let mainName =
    (try? String(contentsOfFile: "/proc/self/comm", encoding: .utf8))?
    .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
func leftovers(_ census: ProcessCensus) -> (threads: [String], descriptors: [String]) {
    (
        ProcessCensus.added(census.threads.filter { $0 != mainName && !$0.contains("qos") }, since: before.threads),
        ProcessCensus.added(census.descriptors, since: before.descriptors)
    )
}
var after = ProcessCensus.take(port: port)
let deadline = ContinuousClock.now + .seconds(5)
while leftovers(after).threads.count + leftovers(after).descriptors.count + after.socketsToPort > 0,
    ContinuousClock.now < deadline
{
    try await Task.sleep(for: .milliseconds(20))
    after = ProcessCensus.take(port: port)
}
figures("after shutdown", after)
FileHandle.standardError.write(Data("figures: threads during, by name: \(during.threads)\n".utf8))
print("threads not there before: \(leftovers(after).threads)")
print("descriptors not there before: \(leftovers(after).descriptors)")
print("sockets to the emulator counted while the client was busy: \(during.socketsToPort > before.socketsToPort)")
print("sockets to the emulator: \(after.socketsToPort)")
print("child processes: \(after.children.count)")
