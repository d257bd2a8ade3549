import FirestoreFeed
import FirestoreREST
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A plain `text/event-stream` client for the `serve` tests: one blocking socket to 127.0.0.1, read on a thread of
/// its own (never the cooperative pool), its response head and its events kept as they come.
final class EventStreamTestClient: @unchecked Sendable {
    /// One event: its `id:`, `event:` and `data:` lines.
    struct Event: Equatable, Sendable {
        var id: UInt64
        var kind: String
        var data: String
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let lock = NSLock()
    private var buffer: [UInt8] = []
    private var head: String?
    private var received: [Event] = []
    private var receivedComments: [String] = []
    private var ended = false
    private let descriptor: Int32

    /// The response's status line and headers, once read (`nil` before).
    var responseHead: String? { lock.withLock { head } }
    /// The events so far.
    var events: [Event] { lock.withLock { received } }
    /// The comment lines so far (without their `:`).
    var comments: [String] { lock.withLock { receivedComments } }
    /// Whether the server closed the stream.
    var isEnded: Bool { lock.withLock { ended } }
    /// The response's body so far (an error response's text).
    var body: String { lock.withLock { String(decoding: buffer, as: UTF8.self) } }

    private init(descriptor: Int32) { self.descriptor = descriptor }

    /// Sends `GET target` with `headers` to 127.0.0.1:`port` and reads what comes back until the server closes or
    /// ``close()``; returns once the response head is read.
    static func get(port: Int, _ target: String, headers: [String: String] = [:], timeout: Double = 20) async throws
        -> EventStreamTestClient
    {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket failed") }
        let client = EventStreamTestClient(descriptor: descriptor)
        var request = "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        Thread {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port)).bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            if connected == 0 {
                _ = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                client.readUntilClosed()
            }
            client.lock.withLock {
                client.ended = true
                Glibc.close(descriptor)
            }
        }.start()
        let deadline = ContinuousClock.now + .seconds(timeout)
        while client.responseHead == nil, !client.isEnded, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        guard client.responseHead != nil else {
            throw Failure(description: "no response head from 127.0.0.1:\(port)\(target)")
        }
        return client
    }

    /// The status of the response.
    var status: Int {
        Int(responseHead?.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    /// Ends the connection (the reading thread closes the socket).
    func close() {
        lock.withLock {
            if !ended { _ = shutdown(descriptor, Int32(SHUT_RDWR)) }
        }
    }

    /// Waits until `condition` holds for the events, the stream ends, or `timeout` passes (a hang guard); the events.
    func events(until condition: ([Event]) -> Bool, timeout: Double = 20) async -> [Event] {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while !condition(events), !isEnded, ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
        return events
    }

    /// Waits until the server closes the stream (or `timeout` passes).
    func waitForEnd(timeout: Double = 20) async {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while !isEnded, ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(10)) }
    }

    private func readUntilClosed() {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            lock.withLock {
                buffer.append(contentsOf: chunk[0..<count])
                parse()
            }
        }
    }

    /// Takes the head, then each complete event (ending in an empty line), out of the buffer. Under the lock.
    private func parse() {
        if head == nil {
            guard let end = Self.find([13, 10, 13, 10], in: buffer) else { return }
            head = String(decoding: buffer[0..<end], as: UTF8.self)
            buffer.removeFirst(end + 4)
            guard head?.lowercased().contains("content-type: text/event-stream") == true else { return }
        }
        guard head?.lowercased().contains("content-type: text/event-stream") == true else { return }
        while let end = Self.find([10, 10], in: buffer) {
            let block = String(decoding: buffer[0..<end], as: UTF8.self)
            buffer.removeFirst(end + 2)
            var event = Event(id: 0, kind: "message", data: "")
            var hasData = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix(":") {
                    receivedComments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                } else if line.hasPrefix("id: ") {
                    event.id = UInt64(line.dropFirst(4)) ?? 0
                } else if line.hasPrefix("event: ") {
                    event.kind = String(line.dropFirst(7))
                } else if line.hasPrefix("data: ") {
                    event.data += String(line.dropFirst(6))
                    hasData = true
                }
            }
            if hasData { received.append(event) }
        }
    }

    static func find(_ pattern: [UInt8], in bytes: [UInt8]) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        for start in 0...(bytes.count - pattern.count) where bytes[start] == pattern[0] {
            if Array(bytes[start..<start + pattern.count]) == pattern { return start }
        }
        return nil
    }
}

/// A list rebuilt from a stream's events as a client does: a `reset` replaces it, a `patch` (with the next id) is
/// applied by ``LiveListPatch/apply(_:to:)``.
struct RebuiltList {
    var documents: [JSONValue] = []
    var lastID: UInt64?

    /// The list after `events`, each patch checked to follow the event before it.
    static func from(_ events: [EventStreamTestClient.Event]) throws -> RebuiltList {
        var list = RebuiltList()
        for event in events { try list.take(event) }
        return list
    }

    mutating func take(_ event: EventStreamTestClient.Event) throws {
        let data = try JSONValue.parse(event.data)
        switch event.kind {
        case "reset":
            documents = data["documents"]?.arrayValue ?? []
        case "patch":
            guard let lastID, event.id == lastID + 1 else {
                throw EventStreamTestClient.Failure(
                    description: "patch \(event.id) after \(lastID.map(String.init) ?? "nothing")")
            }
            documents = try LiveListPatch.apply(data, to: documents)
        default:
            throw EventStreamTestClient.Failure(description: "an event of type \(event.kind)")
        }
        lastID = event.id
    }
}
