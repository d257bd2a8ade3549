/// What one poll of a change feed cost: carried by every snapshot a feed publishes.
public struct PollStatistics: Sendable, Hashable, CustomStringConvertible {
    /// The mode this poll used.
    public var mode: PollMode
    /// Response body bytes received by the poll (after decompression), both phases together.
    public var bytesReceived: Int
    /// Wall-clock time from the first request's start to the last response, both phases together.
    public var latency: Duration
    /// HTTP requests made: 1 in full mode; 1 or 2 (or more for large batches) in keys mode.
    public var requests: Int
    /// Documents fetched in phase two (keys mode); every document in full mode.
    public var documentsFetched: Int

    public init(mode: PollMode, bytesReceived: Int, latency: Duration, requests: Int, documentsFetched: Int) {
        self.mode = mode
        self.bytesReceived = bytesReceived
        self.latency = latency
        self.requests = requests
        self.documentsFetched = documentsFetched
    }

    /// `keys mode: 2 requests, 1843 bytes, 3 documents fetched, 4.1 ms`.
    public var description: String {
        let milliseconds = Double(latency.components.seconds) * 1000 + Double(latency.components.attoseconds) / 1e15
        let rounded = (milliseconds * 10).rounded() / 10
        return "\(mode.rawValue) mode: \(requests) request\(requests == 1 ? "" : "s"), \(bytesReceived) bytes, "
            + "\(documentsFetched) document\(documentsFetched == 1 ? "" : "s") fetched, \(rounded) ms"
    }
}
