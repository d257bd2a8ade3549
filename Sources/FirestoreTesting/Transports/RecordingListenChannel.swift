import FirestoreFeed
import FirestoreREST

/// The `ListenChannel` of a ``RecordingTransport``: every call it opens goes to the live transport's channel,
/// and its messages are recorded into the transport's cassette as a ``Cassette/ListenSession``.
struct RecordingListenChannel: ListenChannel {
    let base: any ListenChannel
    let transport: RecordingTransport

    func makeListenCall(metadata: [HTTPHeader]) throws(FirestoreError) -> any ListenCall {
        let call = try base.makeListenCall(metadata: metadata)
        let (index, start) = transport.listens.begin(method: Cassette.ListenSession.listenMethod, metadata: metadata)
        return RecordingListenCall(base: call, transport: transport, index: index, start: start)
    }

    var activeCallCount: Int { base.activeCallCount }

    func close() async { await base.close() }
}
