import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// `Query.stream()` over the curl transport against a scripted loopback HTTP server: documents arrive while the
/// body is still downloading, leaving the loop stops the transfer, and a body cut off mid-way is resumed after
/// the last document with no document delivered twice.
@Suite(.timeLimit(.minutes(2))) struct QueryStreamLoopbackTests {
    static let root = "projects/p/databases/(default)/documents"

    /// One runQuery element for document `c/d<i>` with `n: i`; the first of a body opens the array.
    static func element(_ index: Int, first: Bool = false) -> String {
        (first ? "[" : ",")
            + #"{"document":{"name":"\#(root)/c/d\#(index)","fields":{"n":{"integerValue":"\#(index)"}},"#
            + #""createTime":"2024-05-01T00:00:00Z","updateTime":"2024-05-01T00:00:00Z"},"#
            + #""readTime":"2024-05-01T00:00:05Z"}"#
    }

    @Test func documentsArriveBeforeTheBodyEnds() async throws {
        let chunks = (0..<10).map { Self.element($0, first: $0 == 0) } + ["]"]
        // The server holds the body after its second chunk (the first document is complete once the next element
        // begins) until the test releases it: the first document must arrive while the rest is still to be written,
        // however fast or slow the machine.
        try await ScriptedHTTPServer.with([.init(chunks: chunks, holdAfter: 2)]) { server in
            let db = try server.firestore()
            var iterator = db.collection("c").order(by: "n").stream().makeAsyncIterator()
            let first = try await iterator.next()
            #expect(first?.documentID == "d0")
            // Held after its second chunk (the server counts a chunk just after writing it, so the count may still
            // say 1): the first document came before the rest of the body was written.
            #expect((1...2).contains(try await server.received().first?.chunksWritten ?? 0))
            try await server.release()
            var rest: [String] = []
            while let document = try await iterator.next() { rest.append(document.documentID) }
            #expect(rest == (1..<10).map { "d\($0)" })
        }
    }

    /// 400 chunks 50 ms apart (20 s): leaving the loop must stop the transfer before its end, however loaded the machine.
    @Test func leavingTheLoopStopsTheTransfer() async throws {
        let chunks = (0..<400).map { Self.element($0, first: $0 == 0) } + ["]"]
        try await ScriptedHTTPServer.with([.init(chunks: chunks, delay: 0.05)]) { server in
            let db = try server.firestore()
            var seen = 0
            for try await _ in db.collection("c").stream() {
                seen += 1
                if seen == 2 { break }
            }
            #expect(seen == 2)
            // Within a few seconds the server's writes fail: the client closed the connection.
            let deadline = ContinuousClock.now + .seconds(30)
            var last = try await server.received()
            while last.first?.aborted != true, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                last = try await server.received()
            }
            #expect(last.first?.aborted == true)
            #expect((last.first?.chunksWritten ?? 401) < 401)
        }
    }

    @Test func cancellingTheTaskStopsTheTransfer() async throws {
        let chunks = (0..<400).map { Self.element($0, first: $0 == 0) } + ["]"]
        try await ScriptedHTTPServer.with([.init(chunks: chunks, delay: 0.05)]) { server in
            let db = try server.firestore()
            let count = Atomic<Int>(0)
            let reader = Task {
                for try await _ in db.collection("c").stream() { count.add(1, ordering: .relaxed) }
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while count.load(ordering: .relaxed) < 3, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            reader.cancel()
            _ = await reader.result
            var last = try await server.received()
            while last.first?.aborted != true, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                last = try await server.received()
            }
            #expect(last.first?.aborted == true)
            #expect(count.load(ordering: .relaxed) < 400)
        }
    }

    /// The first body breaks off after three documents (the connection closes mid-way); the retry asks for what
    /// follows `d2` at the first read time and gets `d3`, `d4`: five documents, none twice.
    @Test func aBodyCutOffIsResumedWithoutDuplicates() async throws {
        let cut = ScriptedHTTPServer.Answer(
            chunks: (0..<3).map { Self.element($0, first: $0 == 0) } + [#",{"document":{"na"#], cut: true)
        let rest = ScriptedHTTPServer.Answer(chunks: [Self.element(3, first: true), Self.element(4), "]"])
        try await ScriptedHTTPServer.with([cut, rest]) { server in
            let db = try server.firestore(clock: CountingClock())
            var ids: [String] = []
            for try await document in db.collection("c").order(by: "n").stream() { ids.append(document.documentID) }
            #expect(ids == ["d0", "d1", "d2", "d3", "d4"])
            let received = try await server.received()
            #expect(received.count == 2)
            let second = try JSONValue.parse(Data(received[1].body.utf8))
            #expect(second["readTime"] == "2024-05-01T00:00:05Z")
            #expect(
                second["structuredQuery"]?["startAt"]
                    == ["values": [["integerValue": "2"], ["referenceValue": .string("\(Self.root)/c/d2")]]])
        }
    }
}
