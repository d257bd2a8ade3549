import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// The recorder's cassette file grows in bounded work per interaction and survives a kill at any moment
/// (issue 19 item 7: a 90 s recording rewrote its 39 MB cassette after every request, 68 s of CPU).
@Suite(.timeLimit(.minutes(2))) struct CassetteFileTests {
    static func temporaryPath() -> String {
        NSTemporaryDirectory() + "cassette-file-\(UUID().uuidString).json"
    }

    static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
        try? FileManager.default.removeItem(atPath: CassetteJournal.path(for: path))
    }

    /// A server answering every request with a 2,000-byte body naming the request.
    static func server() -> ScriptedTransport {
        ScriptedTransport { request, index in
            let filler = String(repeating: "x", count: 2_000 - 40)
            return HTTPResponse(
                status: 200, headers: [HTTPHeader("Content-Type", "application/json")],
                body: Data(
                    #"{"n":\#(index),"path":"\#(Cassette.Request.pathAndQuery(of: request.url))","f":"\#(filler)"}"#
                        .utf8))
        }
    }

    static func get(_ transport: any HTTPTransport, _ name: String) async throws {
        _ = try await transport.send(HTTPRequest(method: "GET", url: "http://h/\(name)"))
    }

    static func fileBytes(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: path))
    }

    /// 400 interactions of about 2.3 KB: the file is always what jsonData() of the recording gives, and the bytes
    /// written stay about twice the file (rewriting the file after each request wrote 200 times it).
    @Test func recordingNInteractionsWritesOrderNBytes() async throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let recorder = RecordingTransport(wrapping: Self.server(), savingTo: path)
        for index in 0..<400 {
            try await Self.get(recorder, "r\(index)")
            if index == 0 || index == 7 || index == 399 {
                #expect(try Self.fileBytes(path) == recorder.cassette.jsonData())
            }
        }
        let size = try Self.fileBytes(path).count
        #expect(size > 400 * 2_000)
        // Each interaction twice (journal and file) with the closing it rewrites, plus the first whole file.
        #expect(recorder.bytesWritten <= 2 * size + 2 * 25 * 400 + 5_000)
        #expect(!FileManager.default.fileExists(atPath: CassetteJournal.path(for: path)))
        #expect(try Cassette(contentsOfFile: path).interactions.count == 400)
    }

    /// Releases its requests in the order the test asks.
    final class GateTransport: HTTPTransport {
        let inner: any HTTPTransport
        let gates = Mutex<[String: CheckedContinuation<Void, Never>]>([:])
        init(_ inner: any HTTPTransport) { self.inner = inner }

        func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
            let name = Cassette.Request.pathAndQuery(of: request.url)
            await withCheckedContinuation { continuation in gates.withLock { $0[name] = continuation } }
            if name.hasSuffix("down") { throw FirestoreError(code: .unavailable, message: "connection refused") }
            return try await inner.send(request)
        }

        var waiting: Set<String> { gates.withLock { Set($0.keys) } }

        func open(_ name: String) {
            gates.withLock { $0.removeValue(forKey: name) }?.resume()
        }
    }

    /// Polls `condition` every 10 ms for at least 30 s (a guard against a hang, never a measure of speed), and
    /// fails the test when it never held: the requests would then go out in another order than the test's.
    static func waitUntil(_ condition: () -> Bool) async throws {
        for _ in 0..<3000 where !condition() { try await Task.sleep(for: .milliseconds(10)) }
        try #require(condition())
    }

    /// An interaction reaches the file once every request sent before it is answered or failed; the file keeps
    /// the order the requests were sent in.
    @Test func theFileFollowsTheOrderOfTheRequests() async throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let gate = GateTransport(Self.server())
        let recorder = RecordingTransport(wrapping: gate, savingTo: path)
        let first = Task { try await Self.get(recorder, "a") }
        try await Self.waitUntil { gate.waiting == ["/a"] }
        let second = Task { try? await Self.get(recorder, "down") }
        try await Self.waitUntil { gate.waiting == ["/a", "/down"] }
        let third = Task { try await Self.get(recorder, "c") }
        try await Self.waitUntil { gate.waiting.count == 3 }
        gate.open("/c")
        try await third.value
        gate.open("/down")
        await second.value
        #expect(!FileManager.default.fileExists(atPath: path))
        gate.open("/a")
        try await first.value
        let recorded = try Cassette(contentsOfFile: path)
        #expect(recorded.interactions.map(\.request.path) == ["/a", "/c"])
        #expect(try Self.fileBytes(path) == recorder.cassette.jsonData())
    }

    /// A secret found in a later interaction is scrubbed from the ones already in the file (the file is rewritten
    /// then), as when the whole cassette was rewritten every time.
    @Test func aLaterSecretLeavesTheInteractionsAlreadyWritten() async throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let server = ScriptedTransport { request, _ in
            if request.url.hasSuffix("/token") {
                return HTTPResponse(status: 200, body: Data(#"{"access_token":"ya29.LATER-SECRET-1234"}"#.utf8))
            }
            return HTTPResponse(status: 200, body: Data(#"{"note":"ya29.LATER-SECRET-1234 seen early"}"#.utf8))
        }
        let recorder = RecordingTransport(wrapping: server, savingTo: path)
        try await Self.get(recorder, "early")
        try await Self.get(recorder, "more")
        #expect(String(decoding: try Self.fileBytes(path), as: UTF8.self).contains("LATER-SECRET"))
        try await Self.get(recorder, "token")
        try await Self.get(recorder, "after")
        let text = String(decoding: try Self.fileBytes(path), as: UTF8.self)
        #expect(!text.contains("LATER-SECRET"))
        #expect(try Self.fileBytes(path) == recorder.cassette.jsonData())
        #expect(try Cassette(contentsOfFile: path).interactions.count == 4)
    }

    /// The states a kill can leave while an interaction is appended: the journal cut short (the file untouched),
    /// the file cut short in the middle of the write (the journal complete), both complete (the journal not yet
    /// removed). Each loads, with the interaction whose write had reached the file.
    @Test func everyStateOfAnInterruptedAppendLoads() async throws {
        let path = Self.temporaryPath()
        defer { Self.remove(path) }
        let recorder = RecordingTransport(wrapping: Self.server(), savingTo: path)
        try await Self.get(recorder, "one")
        try await Self.get(recorder, "two")
        let before = try Self.fileBytes(path)
        try await Self.get(recorder, "three")
        let after = try Self.fileBytes(path)
        let closing = try #require(CassetteFile.closing(of: recorder.cassette))
        #expect(String(decoding: closing, as: UTF8.self) == "\n  ],\n  \"version\": 1\n}\n")
        let offset = before.count - closing.count
        #expect(after.prefix(offset) == before.prefix(offset))
        let chunk = after.suffix(from: offset)
        let journal = CassetteJournal.path(for: path)

        // Killed while writing the journal: the file is as before.
        try before.write(to: URL(fileURLWithPath: path))
        try CassetteJournal.write(chunk, at: offset, to: journal)
        let whole = try Self.fileBytes(journal)
        try whole.prefix(whole.count - 100).write(to: URL(fileURLWithPath: journal))
        #expect(try Cassette(contentsOfFile: path).interactions.map(\.request.path) == ["/one", "/two"])

        // Killed in the middle of the write over the closing, at a page boundary and elsewhere.
        try CassetteJournal.write(chunk, at: offset, to: journal)
        for written in [1, 700, chunk.count / 2, chunk.count - 2] {
            try (before.prefix(offset) + chunk.prefix(written)).write(to: URL(fileURLWithPath: path))
            #expect(throws: FirestoreError.self) { try Cassette(jsonData: Self.fileBytes(path)) }
            #expect(
                try Cassette(contentsOfFile: path).interactions.map(\.request.path) == ["/one", "/two", "/three"])
        }
        // The write shorter than the old closing it replaces: the old closing's end is still there.
        var short = before
        short.replaceSubrange(offset..<(offset + 3), with: chunk.prefix(3))
        try short.write(to: URL(fileURLWithPath: path))
        #expect(try Cassette(contentsOfFile: path).interactions.count == 3)

        // Killed before the journal was removed: the file is complete and read as it is.
        try after.write(to: URL(fileURLWithPath: path))
        #expect(try Cassette(contentsOfFile: path) == recorder.cassette)

        // Without a journal a file cut short is an error naming the file.
        try FileManager.default.removeItem(atPath: journal)
        try (before.prefix(offset) + chunk.prefix(700)).write(to: URL(fileURLWithPath: path))
        let error = #expect(throws: FirestoreError.self) { try Cassette(contentsOfFile: path) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.hasPrefix("\(path): not a cassette") == true)
    }
}
