import FirestoreREST
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A request as read from the socket.
package struct HTTPParsedRequest {
    package var method: String
    /// The request target as sent: a path with its query (`/events?token=…`).
    package var target: String
    package var headers: [HTTPHeader]
    package var body: Data
    package var keepAlive: Bool
}

/// Reads HTTP/1.1 requests from a connection of a server of this package (``CassetteHTTPServer``,
/// `firestore-feed serve`), buffering what arrives past one request for the next, within the server's
/// ``CassetteHTTPServer/Limits`` (head, body and idle time; its connection limit is the server's). On the connection's
/// own thread (it blocks in `poll` for at most the idle timeout at a time).
package struct HTTPSocketReader {
    package enum Outcome {
        case request(HTTPParsedRequest)
        /// The client closed the connection, or sent nothing for the idle timeout, between requests.
        case closed
        /// Answer with the refusal's status and close.
        case refused(HTTPRequestHead.Refusal)
    }

    private enum Fill {
        case more
        case end
        case timedOut
    }

    package let descriptor: Int32
    package let limits: CassetteHTTPServer.Limits
    private var buffer: [UInt8] = []

    package init(descriptor: Int32, limits: CassetteHTTPServer.Limits) {
        self.descriptor = descriptor
        self.limits = limits
    }

    /// Waits up to the idle timeout for bytes and reads what came into the buffer.
    private mutating func fill() -> Fill {
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while true {
            let count = poll(&ready, 1, Int32(clamping: limits.idleMilliseconds))
            if count < 0, errno == EINTR { continue }
            if count == 0 { return .timedOut }
            if count < 0 { return .end }
            break
        }
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return .end }
            buffer.append(contentsOf: chunk[0..<count])
            return .more
        }
    }

    /// Fills the buffer until `isEnough` holds; the refusal for a connection that ended or went silent first.
    private mutating func fill(until isEnough: ([UInt8]) -> Bool, inside what: String) -> HTTPRequestHead
        .Refusal?
    {
        while !isEnough(buffer) {
            switch fill() {
            case .more: continue
            case .end: return HTTPRequestHead.Refusal(status: 400, reason: "connection closed inside \(what)")
            case .timedOut:
                return HTTPRequestHead.Refusal(
                    status: 408, reason: "nothing sent for \(limits.idleTimeout) inside \(what)")
            }
        }
        return nil
    }

    /// The next request; `sendContinue` is called for a request that expects `100 Continue` before its body.
    package mutating func readRequest(continueWith sendContinue: () -> Void) -> Outcome {
        var headEnd: Int?
        while headEnd == nil {
            headEnd = Self.find([13, 10, 13, 10], in: buffer)
            guard headEnd == nil else { break }
            if buffer.count > limits.maxHeadBytes {
                return .refused(.init(status: 431, reason: "a request head over \(limits.maxHeadBytes) bytes"))
            }
            switch fill() {
            case .more: continue
            case .end:
                return buffer.isEmpty
                    ? .closed : .refused(.init(status: 400, reason: "connection closed inside a request head"))
            case .timedOut:
                return buffer.isEmpty
                    ? .closed
                    : .refused(
                        .init(status: 408, reason: "nothing sent for \(limits.idleTimeout) inside a request head"))
            }
        }
        guard let headEnd else { return .closed }
        let text = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        let head: HTTPRequestHead
        switch HTTPRequestHead.parse(text, maxBodyBytes: limits.maxBodyBytes) {
        case .success(let parsed): head = parsed
        case .failure(let refusal): return .refused(refusal)
        }
        if head.expectsContinue, head.body != .none { sendContinue() }
        var body: [UInt8] = []
        switch head.body {
        case .none:
            break
        case .length(let length):
            if let refusal = fill(until: { $0.count >= length }, inside: "a request body") {
                return .refused(refusal)
            }
            body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        case .chunked:
            switch readChunked() {
            case .success(let bytes): body = bytes
            case .failure(let refusal): return .refused(refusal)
            }
        }
        return .request(
            HTTPParsedRequest(
                method: head.method, target: head.target, headers: head.headers, body: Data(body),
                keepAlive: head.keepAlive))
    }

    /// A chunked body (RFC 9112 section 7.1): hex sizes (extensions after `;` ignored), each chunk followed by CRLF,
    /// trailers up to an empty line; at most ``CassetteHTTPServer/Limits/maxBodyBytes`` in all.
    private mutating func readChunked() -> Result<[UInt8], HTTPRequestHead.Refusal> {
        func bad(_ reason: String) -> Result<[UInt8], HTTPRequestHead.Refusal> {
            .failure(.init(status: 400, reason: reason))
        }
        var body: [UInt8] = []
        while true {
            if let refusal = fill(
                until: { $0.count > 1024 || Self.find([13, 10], in: $0) != nil }, inside: "a chunk")
            {
                return .failure(refusal)
            }
            guard let end = Self.find([13, 10], in: buffer) else { return bad("a chunk size line over 1,024 bytes") }
            let sizeText = String(decoding: buffer[0..<end], as: UTF8.self).split(separator: ";").first ?? ""
            let digits = sizeText.filter { $0 != " " && $0 != "\t" }
            guard !digits.isEmpty, digits.count <= 15, digits.allSatisfy(\.isHexDigit),
                let size = Int(digits, radix: 16)
            else { return bad("bad chunk size \"\(sizeText.prefix(40))\"") }
            guard body.count + size <= limits.maxBodyBytes else {
                return .failure(
                    .init(status: 413, reason: "a chunked body over the limit of \(limits.maxBodyBytes) bytes"))
            }
            buffer.removeFirst(end + 2)
            if size == 0 {
                // Trailers end with an empty line.
                let maxHeadBytes = limits.maxHeadBytes
                while true {
                    if let refusal = fill(
                        until: { $0.count > maxHeadBytes || Self.find([13, 10], in: $0) != nil },
                        inside: "chunk trailers")
                    {
                        return .failure(refusal)
                    }
                    guard let trailerEnd = Self.find([13, 10], in: buffer) else {
                        return bad("chunk trailers too long")
                    }
                    buffer.removeFirst(trailerEnd + 2)
                    if trailerEnd == 0 { return .success(body) }
                }
            }
            if let refusal = fill(until: { $0.count >= size + 2 }, inside: "a chunk") {
                return .failure(refusal)
            }
            guard buffer[size] == 13, buffer[size + 1] == 10 else { return bad("a chunk not followed by CRLF") }
            body.append(contentsOf: buffer[0..<size])
            buffer.removeFirst(size + 2)
        }
    }

    /// The offset of the first occurrence of `pattern` in `bytes`.
    static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
            if Array(bytes[start..<start + pattern.count]) == pattern { return start }
        }
        return nil
    }
}
