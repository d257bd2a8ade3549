#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Collects one transfer's response from libcurl's callbacks: header lines, body bytes (up to a cap) and
/// the reason, if any, that a callback asked libcurl to abort.
///
/// Used only by the thread running the transfer; the callbacks reach it through an `Unmanaged` pointer that
/// the transfer keeps alive until `curl_easy_perform` returns.
final class CurlResponseCollector {
    /// The largest body accepted, in bytes.
    let maxBodyBytes: Int
    private let cancellation: CurlCancellation

    /// The body so far (already decoded when the server used a `Content-Encoding` libcurl understands).
    private(set) var body = Data()
    /// The header fields of the most recent response head, in order received.
    private(set) var headers: [HTTPHeader] = []
    /// Set when the body would have grown past ``maxBodyBytes`` and the write callback refused it.
    private(set) var exceededBodyLimit = false
    /// Set when the progress callback aborted because the transfer was cancelled.
    private(set) var abortedByCancellation = false

    /// Where body bytes go instead of ``body`` for a streamed response (``CurlBodyChannel``): `false` aborts.
    private let sink: ((UnsafeRawBufferPointer) -> Bool)?
    /// Told the status and header fields once a final (non-1xx) response head has arrived, for a streamed response.
    private let onHead: ((Int, [HTTPHeader]) -> Void)?
    /// The status of the most recent status line (`HTTP/1.1 200 OK`, `HTTP/2 200`), 0 before one.
    private var status = 0

    init(
        maxBodyBytes: Int, cancellation: CurlCancellation, sink: ((UnsafeRawBufferPointer) -> Bool)? = nil,
        onHead: ((Int, [HTTPHeader]) -> Void)? = nil
    ) {
        self.maxBodyBytes = max(maxBodyBytes, 0)
        self.cancellation = cancellation
        self.sink = sink
        self.onHead = onHead
    }

    /// Appends body bytes, or hands them to the streamed response's sink. Returns `false` (abort the transfer)
    /// when they would exceed ``maxBodyBytes`` or the sink refuses them (the reader went away).
    func appendBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let sink { return sink(bytes) }
        guard bytes.count <= maxBodyBytes - body.count else {
            exceededBodyLimit = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Whether the transfer should stop now (the progress callback's question).
    func shouldAbort() -> Bool {
        if cancellation.isCancelled {
            abortedByCancellation = true
            return true
        }
        return false
    }

    /// Takes one raw header line as libcurl delivers it (including the trailing CR LF).
    ///
    /// Works on bytes, not Characters: `"\r\n"` is a single Swift `Character`. A status line (`HTTP/...`)
    /// starts a new response head (after a redirect or an interim `100 Continue`), so it clears the list.
    /// Lines starting with a space or tab continue the previous field's value (obsolete line folding).
    func receiveHeaderLine(_ bytes: UnsafeRawBufferPointer) {
        var end = bytes.count
        while end > 0, bytes[end - 1] == ASCII.lineFeed || bytes[end - 1] == ASCII.carriageReturn {
            end -= 1
        }
        let line = bytes[0..<end]
        if line.starts(with: "HTTP/".utf8) {
            headers.removeAll()
            let code = line.split(separator: ASCII.space, maxSplits: 2).dropFirst().first
            status = code.flatMap { Int(String(decoding: $0, as: UTF8.self)) } ?? 0
            return
        }
        guard let first = line.first else {
            // The blank line ending the head: a final response's head is complete (1xx heads are interim).
            if status >= 200 { onHead?(status, headers) }
            return
        }
        if first == ASCII.space || first == ASCII.tab {
            guard !headers.isEmpty else { return }
            let continuation = Self.trimmed(line)
            if !continuation.isEmpty {
                headers[headers.count - 1].value += " " + String(decoding: continuation, as: UTF8.self)
            }
            return
        }
        guard let colon = line.firstIndex(of: ASCII.colon) else { return }
        let name = Self.trimmed(line[..<colon])
        let value = Self.trimmed(line[(colon + 1)...])
        guard !name.isEmpty else { return }
        headers.append(
            HTTPHeader(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self)))
    }

    /// `bytes` without leading and trailing spaces and tabs.
    private static func trimmed(_ bytes: Slice<UnsafeRawBufferPointer>) -> Slice<UnsafeRawBufferPointer> {
        var lower = bytes.startIndex
        var upper = bytes.endIndex
        while lower < upper, bytes[lower] == ASCII.space || bytes[lower] == ASCII.tab { lower += 1 }
        while upper > lower, bytes[upper - 1] == ASCII.space || bytes[upper - 1] == ASCII.tab { upper -= 1 }
        return bytes[lower..<upper]
    }

    private enum ASCII {
        static let tab: UInt8 = 0x09
        static let lineFeed: UInt8 = 0x0A
        static let carriageReturn: UInt8 = 0x0D
        static let space: UInt8 = 0x20
        static let colon: UInt8 = 0x3A
    }
}
