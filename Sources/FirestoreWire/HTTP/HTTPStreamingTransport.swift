import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A transport that can hand over a response body as it arrives, so a large streamed response (runQuery) is
/// decoded while it downloads and never held whole. ``CurlTransport`` is one; for any other transport the
/// client falls back to ``HTTPTransport/send(_:)`` and decodes the complete body.
public protocol HTTPStreamingTransport: HTTPTransport {
    /// Sends `request` and returns once the response head has arrived; the body follows in
    /// ``HTTPStreamedResponse/body``.
    /// - Throws: ``FirestoreError`` when no response head arrived (as ``HTTPTransport/send(_:)``).
    func stream(_ request: HTTPRequest) async throws -> HTTPStreamedResponse
}

/// A response whose body is still arriving.
public struct HTTPStreamedResponse: Sendable {
    /// HTTP status code, e.g. 200.
    public var status: Int
    /// Header fields in the order received.
    public var headers: [HTTPHeader]
    /// The body, in chunks as they arrive (already decompressed).
    public var body: HTTPBodyStream

    /// A response from its parts.
    public init(status: Int, headers: [HTTPHeader], body: HTTPBodyStream) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// The chunks of a response body as they arrive. At most one chunk waits for the reader: the transfer holds back
/// (and the connection's flow control with it) until the reader takes it, so memory stays bounded by a chunk
/// however large the body. When every copy of the stream and its iterators are gone, or the reading task is
/// cancelled, the transfer stops.
public struct HTTPBodyStream: AsyncSequence, Sendable {
    /// A chunk of body bytes.
    public typealias Element = Data
    package let source: any HTTPBodySource

    /// A body of chunks given at once (for transports that receive the whole body first, and for tests).
    public init(chunks: [Data]) {
        source = FixedBodySource(chunks: chunks)
    }

    package init(source: any HTTPBodySource) {
        self.source = source
    }

    /// An iterator over the chunks; every iterator of one stream reads from the same transfer.
    public func makeAsyncIterator() -> Iterator { Iterator(source: source) }

    /// Reads the body's chunks in order.
    public struct Iterator: AsyncIteratorProtocol, Sendable {
        let source: any HTTPBodySource

        /// The next chunk, or `nil` at the end of the body.
        /// - Throws: ``FirestoreError`` when the transfer failed mid-way (e.g. `.unavailable` for a connection cut),
        ///   `.cancelled` when the reading task was cancelled.
        public mutating func next() async throws -> Data? { try await source.next() }
    }
}

/// Where an ``HTTPBodyStream``'s chunks come from.
package protocol HTTPBodySource: Sendable {
    func next() async throws -> Data?
    /// Stops the transfer behind the body; the reader gets `error`.
    func cancel(error: FirestoreError)
    /// Returns once the transfer behind the body has ended.
    func ended() async
}

extension HTTPBodySource {
    /// Nothing to stop: the body is in memory.
    package func cancel(error: FirestoreError) {}
    /// Nothing to wait for: the body is in memory.
    package func ended() async {}
}

/// Chunks known in advance.
private final class FixedBodySource: HTTPBodySource {
    private let chunks: Mutex<[Data]>

    init(chunks: [Data]) { self.chunks = Mutex(chunks) }

    func next() async throws -> Data? {
        chunks.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }
}
