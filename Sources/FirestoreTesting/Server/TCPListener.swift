import FirestoreREST
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A listening TCP socket on one IPv4 address, for the servers of this package (``CassetteHTTPServer``,
/// `firestore-feed serve`). ``accept()`` blocks: call it on a thread of its own.
package final class TCPListener: Sendable {
    /// The port listened on (the one the system chose for port 0).
    package let port: Int
    /// The address listened on, as given.
    package let host: String
    private let descriptor: Int32

    /// Binds `host`:`port` (an IPv4 address; port 0 for a free one, see ``port``) and listens, with room for `backlog`
    /// connections not yet accepted.
    /// - Throws: `FirestoreError` `.unavailable` naming the address and the system's reason; `.invalidArgument` for a
    ///   host that is not an IPv4 address.
    package init(host: String, port: Int, backlog: Int32 = 64) throws(FirestoreError) {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(clamping: port)).bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            throw .invalidArgument("cannot listen on \(host): not an IPv4 address such as 127.0.0.1 or 0.0.0.0")
        }
        #if canImport(Glibc)
            let socketType = Int32(SOCK_STREAM.rawValue)
        #else
            let socketType = SOCK_STREAM
        #endif
        let descriptor = socket(AF_INET, socketType, 0)
        guard descriptor >= 0 else { throw Self.systemError("socket", host: host, port: port) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(descriptor, backlog) == 0 else {
            let error = Self.systemError("bind", host: host, port: port)
            close(descriptor)
            throw error
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        self.host = host
        self.port = Int(UInt16(bigEndian: actual.sin_port))
    }

    deinit { close(descriptor) }

    /// The next connection's descriptor (the caller closes it). Blocks until one comes; a failed `accept` (a
    /// connection aborted before it was taken, no descriptor left for a moment) is retried, after 10 ms for a lack of
    /// resources. On a thread of its own, never a thread of the cooperative pool.
    package func accept() -> Int32 {
        while true {
            #if canImport(Glibc)
                let connection = Glibc.accept(descriptor, nil, nil)
            #else
                let connection = Darwin.accept(descriptor, nil, nil)
            #endif
            if connection >= 0 { return connection }
            if errno == EINTR || errno == ECONNABORTED { continue }
            usleep(10_000)
        }
    }

    static func systemError(_ call: String, host: String, port: Int) -> FirestoreError {
        FirestoreError(
            code: .unavailable,
            message: "cannot listen on \(host):\(port): \(call): \(String(cString: strerror(errno)))")
    }
}
