import FirestoreFeed
import FirestoreREST

extension ReplayTransport: ListenTransport {
    /// A channel whose calls replay the cassette's Listen sessions (in `.newEpisodes` mode, calls that match
    /// none are recorded through the live transport); in `.once` without a cassette and `.all`, the live
    /// transport's channel with every call recorded.
    /// - Throws: `FirestoreError` `.unimplemented` when the cassette holds no Listen session and nothing is
    ///   recorded (the feed then polls, saying why); in a recording mode, the live transport's error.
    package func makeListenChannel(for firestore: Firestore) throws(FirestoreError) -> any ListenChannel {
        if let recorder {
            guard mode == .newEpisodes else { return try recorder.makeListenChannel(for: firestore) }
            let live: any ListenChannel
            do {
                live = try recorder.makeListenChannel(for: firestore)
            } catch {
                guard !listens.sessions.isEmpty else { throw error }
                return ReplayListenChannel(player: listens, live: nil)
            }
            return ReplayListenChannel(player: listens, live: live)
        }
        guard !listens.sessions.isEmpty else {
            throw FirestoreError(
                code: .unimplemented,
                message: "\(name) holds no recorded Listen session, so a Listen stream cannot be replayed from it")
        }
        return ReplayListenChannel(player: listens, live: nil)
    }

    /// The indices of the cassette's Listen sessions no call has replayed yet, in order.
    public var unplayedListenSessionIndices: [Int] {
        listens.unplayedIndices
    }
}
