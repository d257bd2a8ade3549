import FirestoreFeed
import FirestoreREST

extension RecordingTransport: ListenTransport {
    /// The live transport's Listen channel with every call recorded (``Cassette/ListenSession``).
    /// - Throws: `FirestoreError` `.unimplemented` when the live transport cannot carry a Listen stream (the
    ///   feed then polls, and records the polls); the live transport's own error.
    package func makeListenChannel(for firestore: Firestore) throws(FirestoreError) -> any ListenChannel {
        guard let live = live as? any ListenTransport else {
            throw FirestoreError(
                code: .unimplemented,
                message: "the recording transport's live transport (\(type(of: live))) cannot open a Listen stream")
        }
        return RecordingListenChannel(base: try live.makeListenChannel(for: firestore), transport: self)
    }
}
