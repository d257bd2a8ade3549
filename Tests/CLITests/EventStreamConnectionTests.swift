import FirestoreFeed
import FirestoreREST
import Foundation
import Synchronization
import Testing

@testable import FirestoreFeedCLI

#if canImport(Glibc)
    import Glibc
#endif

/// `serve`'s stream to one client (issue 39) over a socket pair, with no network: a client that does not read is cut
/// once it is more than `clientBuffer` events behind; it then reads every event it was handed, in order, and the cut's
/// reason as a comment line, and the stream closes; back with its last id, it gets the events it missed.
@Suite(.timeLimit(.minutes(1))) struct EventStreamConnectionTests {
    static func document(version: Int) -> Document {
        Document(
            name: "projects/p/databases/(default)/documents/c/a",
            // 64 KiB a patch: a few fill the socket pair's buffers.
            fields: ["v": .integer(Int64(version)), "padding": .string(String(repeating: "x", count: 64 * 1024))],
            createTime: Timestamp(date: Date(timeIntervalSince1970: 1)),
            updateTime: Timestamp(date: Date(timeIntervalSince1970: Double(1 + version))))
    }

    /// Everything `descriptor` delivers until end of file, read on a thread of its own.
    static func readToEnd(_ descriptor: Int32) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            Thread {
                var bytes: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                while true {
                    let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                    if count < 0, errno == EINTR { continue }
                    guard count > 0 else { break }
                    bytes += chunk[0..<count]
                }
                continuation.resume(returning: bytes)
            }.start()
        }
    }

    @Test func aClientThatDoesNotReadIsCutWithTheReasonAndComesBackWithItsID() async throws {
        let list = LiveList(capacity: 1_000, clientBuffer: 2, firstEventID: 0)
        var pair: [Int32] = [-1, -1]
        #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair) == 0)
        let (server, client) = (pair[0], pair[1])
        defer { close(client) }
        let cuts = Mutex(0)
        let served = Thread {
            EventStreamConnection.serve(
                list, lastEventID: nil, on: server, clientBuffer: 2, onCut: { cuts.withLock { $0 += 1 } })
            close(server)
        }
        served.start()
        // The client is in the list (its task took its reset) before the first update.
        let joined = ContinuousClock.now + .seconds(20)
        while list.clientCount == 0, ContinuousClock.now < joined { try await Task.sleep(for: .milliseconds(5)) }
        // The client reads nothing: the pair's buffers fill, the connection's thread waits in send, the client's
        // events pile up in the list's buffer of 2, and the next one cuts it.
        var version = 0
        let deadline = ContinuousClock.now + .seconds(20)
        while list.cutClients == 0, ContinuousClock.now < deadline {
            version += 1
            list.update(documents: [Self.document(version: version)], readTime: nil)
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(list.cutClients == 1)
        let text = String(decoding: await Self.readToEnd(client), as: UTF8.self)
        let blocks = text.components(separatedBy: "\n\n").filter { !$0.isEmpty }
        #expect(
            blocks.last == ": cut: this client fell more than 2 events behind; reconnect with Last-Event-ID to get "
                + "the events missed")
        #expect(cuts.withLock { $0 } == 1)
        let events = blocks.dropLast().compactMap { block -> (UInt64, String, String)? in
            let lines = block.split(separator: "\n").map(String.init)
            guard lines.count == 3, let id = UInt64(lines[0].dropFirst(4)) else { return nil }
            return (id, String(lines[1].dropFirst(7)), String(lines[2].dropFirst(6)))
        }
        #expect(events.count == blocks.count - 1)
        // A reset at 0, then every patch in order, up to where the client was cut: fewer than the list has.
        #expect(events.map(\.0) == Array(0..<UInt64(events.count)))
        #expect(events.first?.1 == "reset")
        let lastID = try #require(events.last?.0)
        #expect(lastID < list.lastEventID)
        var documents: [JSONValue] = []
        for (_, kind, data) in events where kind == "patch" {
            documents = try LiveListPatch.apply(try JSONValue.parse(data), to: documents)
        }
        // Back with its id: exactly the events it missed, and the list it rebuilds is the list now.
        var iterator = list.events(lastEventID: String(lastID)).makeAsyncIterator()
        for expected in (lastID + 1)...list.lastEventID {
            let event = try #require(await iterator.next())
            #expect(event.id == expected)
            documents = try LiveListPatch.apply(try JSONValue.parse(event.data), to: documents)
        }
        #expect(documents == [Self.document(version: version).restJSON()])
    }
}
