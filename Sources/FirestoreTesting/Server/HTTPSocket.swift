import FirestoreREST
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writing to a connection of a server of this package (``CassetteHTTPServer``, `firestore-feed serve`): responses
/// framed by `Content-Length`, whole writes, and a drain before a close. Blocking: on the connection's own thread.
package enum HTTPSocket {
    /// A whole response: status line, `headers` (framing headers among them dropped, line breaks taken out of
    /// values), `Content-Length` and `Connection`, then `body`.
    package static func responseBytes(status: Int, headers: [HTTPHeader], body: Data, keepAlive: Bool) -> [UInt8] {
        var head = "HTTP/1.1 \(status) \(reason(status))\r\n"
        let framing: Set<String> = [
            "content-length", "transfer-encoding", "connection", "content-encoding", "keep-alive",
        ]
        for header in headers where !framing.contains(header.name.lowercased()) {
            let value = header.value.filter { $0 != "\r" && $0 != "\n" }
            head += "\(header.name): \(value)\r\n"
        }
        head += "Content-Length: \(body.count)\r\n"
        head += keepAlive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n"
        return Array(head.utf8) + Array(body)
    }

    /// The reason phrase of `status`.
    package static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 204: return "No Content"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 408: return "Request Timeout"
        case 409: return "Conflict"
        case 413: return "Content Too Large"
        case 429: return "Too Many Requests"
        case 431: return "Request Header Fields Too Large"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return "Status \(status)"
        }
    }

    /// Closes the sending side and reads what the client still sends, for at most a second, before the connection
    /// is closed: closing with unread bytes resets the connection, and a reset can discard the refusal just written
    /// before the client reads it (RFC 9112 section 9.6). On the connection's own thread.
    package static func drain(_ descriptor: Int32) {
        shutdown(descriptor, Int32(SHUT_WR))
        let deadline = ContinuousClock.now + .seconds(1)
        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while ContinuousClock.now < deadline {
            guard poll(&ready, 1, 100) >= 0 || errno == EINTR else { return }
            let count = scratch.withUnsafeMutableBytes {
                recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT))
            }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return }
        }
    }

    /// Answers a connection over a server's limit with `503 Service Unavailable: REASON` and `Retry-After: 1`, sent
    /// without waiting (`MSG_DONTWAIT`: a client that does not read never holds up the accepting thread), and closes
    /// it.
    package static func refuse(_ connection: Int32, reason: String) {
        let bytes = responseBytes(
            status: 503, headers: [HTTPHeader("Retry-After", "1")], body: Data("Service Unavailable: \(reason)\n".utf8),
            keepAlive: false)
        _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        close(connection)
    }

    /// Writes every byte; `false` when the peer went away.
    @discardableResult
    package static func write(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { buffer in
                send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += sent
        }
        return true
    }
}
