import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Foundation
import Testing

/// The live list's events (issue 39's patch stream): a patch applied to the old list gives the new one, for a
/// written-out case and for random snapshots; a client that reconnects with its last id, from any id, ends with the
/// list an uninterrupted client has; a client too far behind is cut. No network.
@Suite(.timeLimit(.minutes(1))) struct LiveListTests {
    static let epoch = Date(timeIntervalSince1970: 0)

    static func document(_ id: String, version: Int64) -> Document {
        Document(
            name: "projects/p/databases/(default)/documents/c/\(id)", fields: ["v": .integer(version)],
            createTime: Timestamp(date: epoch.addingTimeInterval(1)),
            updateTime: Timestamp(date: epoch.addingTimeInterval(Double(1 + version))))
    }

    /// A client: applies each event to its list of document JSON.
    struct Client {
        var list: [JSONValue] = []
        var lastID: UInt64 = 0

        mutating func take(_ event: LiveListEvent) throws {
            let data = try JSONValue.parse(event.data)
            switch event.kind {
            case .reset: list = data["documents"]?.arrayValue ?? []
            case .patch:
                #expect(event.id == lastID + 1, "patch \(event.id) after \(lastID)")
                list = try LiveListPatch.apply(data, to: list)
            }
            lastID = event.id
        }
    }

    /// Takes `count` events from `iterator`.
    static func take(
        _ count: Int, from iterator: inout AsyncStream<LiveListEvent>.Iterator, into client: inout Client
    ) async throws {
        for _ in 0..<count {
            guard let event = await iterator.next() else { throw CancellationError() }
            try client.take(event)
        }
    }

    @Test func aPatchIsTheDiffWithTheDocumentsItNeedsAndRebuildsTheList() async throws {
        let (a, b, c, d, e) = (
            Self.document("a", version: 1), Self.document("b", version: 1), Self.document("c", version: 1),
            Self.document("d", version: 1), Self.document("e", version: 1)
        )
        let list = LiveList(firstEventID: 0)
        list.update(documents: [a, b, c, d, e], readTime: nil)
        var iterator = list.events(lastEventID: "1").makeAsyncIterator()
        let changedA = Self.document("a", version: 2)
        let x = Self.document("x", version: 1)
        list.update(documents: [c, x, changedA, e], readTime: Timestamp(date: Self.epoch.addingTimeInterval(9)))
        let event = try #require(await iterator.next())
        #expect(event.id == 2)
        #expect(event.kind == .patch)
        let prefix = "projects/p/databases/(default)/documents/c/"
        #expect(
            try JSONValue.parse(event.data)
                == JSONValue.parse(
                    #"{"readTime":"1970-01-01T00:00:09Z","count":4,"deleted":[3,1],"#
                        + #""moved":[{"from":2,"to":0}],"#
                        + #""inserted":[{"index":1,"document":{"name":"\#(prefix)x","fields":{"v":{"integerValue":"1"}},"#
                        + #""createTime":"1970-01-01T00:00:01Z","updateTime":"1970-01-01T00:00:02Z"}}],"#
                        + #""changed":[{"index":2,"document":{"name":"\#(prefix)a","fields":{"v":{"integerValue":"2"}},"#
                        + #""createTime":"1970-01-01T00:00:01Z","updateTime":"1970-01-01T00:00:03Z"}}]}"#))
        #expect(event.serverSentEvent.hasPrefix("id: 2\nevent: patch\ndata: {"))
        #expect(event.serverSentEvent.hasSuffix("}\n\n"))
        let old = [a, b, c, d, e].map { $0.restJSON() }
        let patch = try JSONValue.parse(event.data)
        #expect(try LiveListPatch.apply(patch, to: old) == [c, x, changedA, e].map { $0.restJSON() })
    }

    @Test func randomSnapshotsPatchedGiveEachNewList() async throws {
        var generator = SplitMix64(seed: 39)
        var client = Client()
        let list = LiveList()
        var iterator = list.events().makeAsyncIterator()
        try await Self.take(1, from: &iterator, into: &client)
        var current: [Document] = []
        var version: Int64 = 1
        for _ in 0..<500 {
            let previous = current
            current = Self.randomStep(current, version: &version, generator: &generator)
            let before = list.lastEventID
            list.update(documents: current, readTime: nil)
            let produced = Int(list.lastEventID - before)
            // One patch for a list that differs, none for one that does not.
            #expect(produced == (current == previous ? 0 : 1))
            try await Self.take(produced, from: &iterator, into: &client)
            #expect(client.list == current.map { $0.restJSON() })
        }
    }

    @Test func aClientReconnectingFromAnyIDEndsWithTheListAnUninterruptedClientHas() async throws {
        var generator = SplitMix64(seed: 7)
        let list = LiveList(capacity: 4, clientBuffer: 10_000)
        var uninterrupted = Client()
        var whole = list.events().makeAsyncIterator()
        try await Self.take(1, from: &whole, into: &uninterrupted)
        var reconnecting = Client()
        var connection: AsyncStream<LiveListEvent>.Iterator? = list.events().makeAsyncIterator()
        try await Self.take(1, from: &connection!, into: &reconnecting)
        var (replays, resets) = (0, 0)

        /// Reconnects with the client's last id: the events missed, or a reset.
        func reconnect() async throws {
            var iterator = list.events(lastEventID: String(reconnecting.lastID)).makeAsyncIterator()
            if reconnecting.lastID == list.lastEventID {
                connection = iterator
                return
            }
            guard let first = await iterator.next() else { throw CancellationError() }
            try reconnecting.take(first)
            if first.kind == .reset {
                resets += 1
            } else {
                replays += 1
                try await Self.take(Int(list.lastEventID - first.id), from: &iterator, into: &reconnecting)
            }
            connection = iterator
        }

        var current: [Document] = []
        var version: Int64 = 1
        for _ in 0..<400 {
            current = Self.randomStep(current, version: &version, generator: &generator)
            let before = list.lastEventID
            list.update(documents: current, readTime: nil)
            let produced = Int(list.lastEventID - before)
            try await Self.take(produced, from: &whole, into: &uninterrupted)
            #expect(uninterrupted.list == current.map { $0.restJSON() })
            if connection != nil {
                if generator.next() % 5 == 0 {
                    connection = nil
                } else {
                    try await Self.take(produced, from: &connection!, into: &reconnecting)
                }
            } else if generator.next() % 4 == 0 {
                // Back after a few events: some within the log of 4, some beyond it.
                try await reconnect()
            }
        }
        if connection == nil { try await reconnect() }
        #expect(reconnecting.list == uninterrupted.list)
        #expect(reconnecting.lastID == list.lastEventID)
        // Seed 7: both ways back were taken.
        #expect(replays > 10)
        #expect(resets > 0)
    }

    @Test func aClientTooFarBehindIsCutAndComesBackWithItsID() async throws {
        let list = LiveList(capacity: 100, clientBuffer: 2, firstEventID: 0)
        var client = Client()
        var iterator = list.events().makeAsyncIterator()
        for version in 1...3 { list.update(documents: [Self.document("a", version: Int64(version))], readTime: nil) }
        // Buffered: the reset and patch 1; patch 2 did not fit, so the stream ended there.
        try await Self.take(2, from: &iterator, into: &client)
        #expect(await iterator.next() == nil)
        #expect(list.cutClients == 1)
        #expect(list.clientCount == 0)
        var again = list.events(lastEventID: String(client.lastID)).makeAsyncIterator()
        try await Self.take(2, from: &again, into: &client)
        #expect(client.lastID == 3)
        #expect(client.list == [Self.document("a", version: 3).restJSON()])
    }

    /// `documents` after a random step: some removed, some added, some updated, some moved.
    static func randomStep(_ documents: [Document], version: inout Int64, generator: inout SplitMix64) -> [Document] {
        var next = documents
        for _ in 0..<Int(generator.next() % 3) where !next.isEmpty {
            next.remove(at: Int(generator.next() % UInt64(next.count)))
        }
        for _ in 0..<Int(generator.next() % 3) {
            version += 1
            let document = Self.document("d\(generator.next() % 40)", version: version)
            if next.contains(where: { $0.name == document.name }) { continue }
            next.insert(document, at: Int(generator.next() % UInt64(next.count + 1)))
        }
        for _ in 0..<Int(generator.next() % 3) where !next.isEmpty {
            version += 1
            let index = Int(generator.next() % UInt64(next.count))
            let id = String(next[index].name.split(separator: "/").last ?? "")
            next[index] = Self.document(id, version: version)
        }
        if next.count > 1, generator.next() % 2 == 0 {
            let moved = next.remove(at: Int(generator.next() % UInt64(next.count)))
            next.insert(moved, at: Int(generator.next() % UInt64(next.count + 1)))
        }
        return next
    }
}
