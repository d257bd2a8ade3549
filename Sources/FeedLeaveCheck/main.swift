// Breaks out of change feeds the way a reader of README does, in top-level code (this file) and in a function,
// and prints what each feed did afterwards (issue 17). `FeedLeaveLiveTests` runs it against the emulator and
// compares its output with written-out lines.
//
// Usage: FeedLeaveCheck HOST:PORT PROJECT
//
// Top-level code is special: it ends in `exit`, so Swift never releases its values, the iterator of a
// `for try await` loop included. The feed cannot hear the `break`; it works only on demand instead.
import FirestoreFeed
import FirestoreREST
import Foundation

let arguments = CommandLine.arguments.dropFirst()
guard arguments.count == 2, let host = arguments.first, let project = arguments.last else {
    FileHandle.standardError.write(Data("usage: FeedLeaveCheck HOST:PORT PROJECT\n".utf8))
    exit(2)
}
let counter = RequestCounter()
let polled = try Firestore.emulator(host: host, projectID: project, transport: counter)
let listened = try Firestore.emulator(host: host, projectID: project)
for collection in ["top", "function", "document"] {
    try await polled.document("\(collection)/apple").setData(["name": "Apple"])
}

/// Prints how many requests were sent by the time of the break, and two seconds (20 intervals) later.
func report(_ form: String, since start: Int, atBreak: Int) async throws {
    try await Task.sleep(for: .seconds(2))
    print("\(form): \(atBreak - start) requests at the break, \(counter.count - start) two seconds later")
}

// Keys polling every 0.1 s, in top-level code.
var start = counter.count
for try await snapshot in polled.collection("top").snapshots(source: .poll(.keys), interval: .milliseconds(100)) {
    _ = snapshot
    break
}
try await report("top level, keys polling every 0.1 s", since: start, atBreak: counter.count)

// The same in a function: the iterator is released at the break.
func pollInAFunction() async throws {
    for try await snapshot in polled.collection("function").snapshots(
        source: .poll(.keys), interval: .milliseconds(100))
    {
        _ = snapshot
        break
    }
}
start = counter.count
try await pollInAFunction()
try await report("in a function, keys polling every 0.1 s", since: start, atBreak: counter.count)

// A document's feed, polled, in top-level code.
start = counter.count
for try await snapshot in polled.document("document/apple").snapshots(
    source: .poll(.keys), interval: .milliseconds(100))
{
    _ = snapshot
    break
}
try await report("top level, a document polled every 0.1 s", since: start, atBreak: counter.count)

// The Listen stream, in top-level code. A target whose listeners leave a snapshot untaken without asking is
// suspended after half to all of the idle timeout (a minute; 2 s here, so the check ends soon); one that is only
// quiet costs nothing and stays. The stream ends with its last target.
WatchStreamPool.shared.idleTimeout = .seconds(2)
for try await snapshot in listened.collection("top").snapshots() {
    _ = snapshot
    break
}
let streamsAtBreak = WatchStreamPool.shared.streamCount
try await Task.sleep(for: .seconds(3))
let streamsQuiet = WatchStreamPool.shared.streamCount
try await listened.document("top/banana").setData(["name": "Banana"])
// The change reaches the target, which nobody takes: the stream ends. How soon depends on the emulator's delivery
// and the machine's load, so the output says only whether it ended (30 s is a hang guard), and the time goes to
// stderr, for the test to print.
let clock = ContinuousClock()
let changed = clock.now
while WatchStreamPool.shared.streamCount > 0, clock.now - changed < .seconds(30) {
    try await Task.sleep(for: .milliseconds(50))
}
let streamsAfter = WatchStreamPool.shared.streamCount
FileHandle.standardError.write(
    Data("FeedLeaveCheck: listen: \(streamsAfter) streams \(clock.now - changed) after the change\n".utf8))
print(
    "top level, listen: \(streamsAtBreak) stream at the break, \(streamsQuiet) 3 s later with nothing new, "
        + "\(streamsAfter) after a change")

// The same in a function: the target is removed at the break.
func listenInAFunction() async throws {
    for try await snapshot in listened.collection("function").snapshots() {
        _ = snapshot
        break
    }
}
try await listenInAFunction()
print("in a function, listen: \(WatchStreamPool.shared.streamCount) streams after the loop")
