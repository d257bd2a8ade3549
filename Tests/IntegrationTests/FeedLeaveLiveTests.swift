import FirestoreTestSupport
import Foundation
import Testing

/// Issue 17: breaking out of `for try await snapshot in query.snapshots(...)` ends the feed's work in both forms a
/// reader of README writes it: in a function (the loop's iterator is released at the `break`) and in the
/// top-level code of a `main.swift` (it never is: top-level code ends in `exit`). The `FeedLeaveCheck` executable
/// does both against the emulator and prints what followed. Before the fix the top-level keys loop had made 2
/// requests at the break and 15 to 16 three seconds later (every 0.2 s); the Listen target stayed forever, billed
/// for every change. (`FeedLeaveCheck` shortens the Listen idle timeout from a minute to 2 s.)
@Suite(.timeLimit(.minutes(2))) struct FeedLeaveLiveTests {
    @Test func breakingOutOfAFeedEndsItsWorkAtTopLevelAndInAFunction() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("feed-leave")
        let result = try await CLIProcess.run(
            [host, project], executable: CLIProcess.builtExecutable("FeedLeaveCheck"), timeout: 90)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        // How long the Listen stream took to end after the change: a figure of the machine, printed, not asserted.
        for line in result.stderr.split(separator: "\n") where line.hasPrefix("FeedLeaveCheck: ") { print(line) }
        // A keys poll is two requests: runQuery (names and versions), then batchGet of the new documents.
        #expect(
            result.lines == [
                "top level, keys polling every 0.1 s: 2 requests at the break, 2 two seconds later",
                "in a function, keys polling every 0.1 s: 2 requests at the break, 2 two seconds later",
                "top level, a document polled every 0.1 s: 2 requests at the break, 2 two seconds later",
                "top level, listen: 1 stream at the break, 1 3 s later with nothing new, 0 after a change",
                "in a function, listen: 0 streams after the loop",
            ])
    }
}
