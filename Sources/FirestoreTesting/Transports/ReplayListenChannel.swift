import FirestoreFeed
import FirestoreREST
import Synchronization

/// The `ListenChannel` of a ``ReplayTransport``: each call replays a recorded ``Cassette/ListenSession``
/// (``ReplayListenCall``). In `.newEpisodes` mode a call whose first request matches no session goes to `live`
/// (the recorder's channel) instead.
struct ReplayListenChannel: ListenChannel {
    let player: ListenSessionPlayer
    let live: (any ListenChannel)?
    let running = RunningCount()

    func makeListenCall(metadata: [HTTPHeader]) throws(FirestoreError) -> any ListenCall {
        ReplayListenCall(player: player, live: live, metadata: metadata, running: running)
    }

    var activeCallCount: Int { running.value }

    /// How many calls of a channel are running.
    final class RunningCount: Sendable {
        private let count = Atomic<Int>(0)
        var value: Int { count.load(ordering: .relaxed) }
        func add(_ delta: Int) { count.add(delta, ordering: .relaxed) }
    }
}
