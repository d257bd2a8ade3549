import FirestoreTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain TCP connection to a loopback port, for sending bytes no HTTP client would send. Its blocking calls run on
/// threads of their own (``BlockingWork``), never on the cooperative pool.
final class RawConnection: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let descriptor: Int32

    private init(descriptor: Int32) { self.descriptor = descriptor }

    deinit { close(descriptor) }

    /// Connects to 127.0.0.1:`port`.
    static func open(port: Int) async throws -> RawConnection {
        try await BlockingWork.run {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw Failure(description: "socket: \(String(cString: strerror(errno)))") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                let reason = String(cString: strerror(errno))
                close(descriptor)
                throw Failure(description: "connect to \(port): \(reason)")
            }
            return RawConnection(descriptor: descriptor)
        }
    }

    /// Sends every byte of `text`.
    func send(_ text: String) async throws {
        let descriptor = self.descriptor
        try await BlockingWork.run {
            let bytes = Array(text.utf8)
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes {
                    Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard sent > 0 else { throw Failure(description: "send: \(String(cString: strerror(errno)))") }
                offset += sent
            }
        }
    }

    /// What arrives until the server closes the connection (`closed`) or `seconds` pass.
    func read(seconds: Double) async throws -> (text: String, closed: Bool) {
        let descriptor = self.descriptor
        return try await BlockingWork.run {
            var timeout = timeval(tv_sec: 0, tv_usec: 100_000)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            let deadline = Date().addingTimeInterval(seconds)
            var received: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while Date() < deadline {
                let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    received += chunk[0..<count]
                } else if count == 0 || errno == ECONNRESET {
                    return (String(decoding: received, as: UTF8.self), true)
                }
            }
            return (String(decoding: received, as: UTF8.self), false)
        }
    }
}
