import FirestoreFeed
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// `ReplayTransport` replays recorded Listen sessions: a call takes the session that starts with its first
/// request, gets the recorded responses in order at the recorded pace scaled by the speed, and ends as the
/// recorded call ended; what does not match fails with what differed. The cassette member round-trips.
@Suite(.timeLimit(.minutes(2))) struct ListenReplayTests {
    static func session(
        first: ListenRequest = ListenTesting.addApple(), responses: [ListenResponse] = ListenTesting.appleResponses,
        times: [Double]? = nil, then tail: [Cassette.ListenSession.Message] = [],
        end: Cassette.ListenSession.End? = .cancelledByClient
    ) throws -> Cassette.ListenSession {
        var messages = [Cassette.ListenSession.Message(.request, try first.protoJSON())]
        for (index, response) in responses.enumerated() {
            messages.append(.init(.response, response.protoJSON, at: times?[index] ?? 0))
        }
        return Cassette.ListenSession(messages: messages + tail, end: end)
    }

    static func call(_ transport: ReplayTransport) throws -> any ListenCall {
        try transport.makeListenChannel(for: try ListenTesting.client(transport)).makeListenCall(metadata: [])
    }

    @Test func aCallReplaysTheSessionThatStartsWithItsFirstRequestThenStaysOpen() async throws {
        let other = try Self.session(first: ListenTesting.addApple(resumeToken: [9]), responses: [])
        let cassette = Cassette(listenSessions: [other, try Self.session()])
        let transport = ReplayTransport(cassette: cassette, name: "listen.json")
        let call = try Self.call(transport)
        try call.send(ListenTesting.addApple())
        #expect(try await ListenTesting.take(4, from: call) == ListenTesting.appleResponses)
        #expect(transport.unplayedListenSessionIndices == [0])
        // Recorded as cancelled by the client: the stream stays open until this client cancels too.
        call.cancel()
        let (rest, error) = await ListenTesting.collect(call)
        #expect(rest.isEmpty)
        #expect(
            error
                == FirestoreError(code: .cancelled, message: "cancelled while replaying a Listen call from listen.json")
        )
    }

    @Test func aSessionEndsAsTheRecordedCallEnded() async throws {
        let finished = ReplayTransport(cassette: Cassette(listenSessions: [try Self.session(end: .finished)]))
        let call = try Self.call(finished)
        try call.send(ListenTesting.addApple())
        let (taken, error) = await ListenTesting.collect(call)
        #expect(taken == ListenTesting.appleResponses)
        #expect(error == nil)

        let failing = ReplayTransport(
            cassette: Cassette(listenSessions: [
                try Self.session(responses: [], end: .failed(code: .unavailable, message: "Connection reset"))
            ]))
        let failed = try Self.call(failing)
        try failed.send(ListenTesting.addApple())
        let (none, failure) = await ListenTesting.collect(failed)
        #expect(none.isEmpty)
        #expect(failure == FirestoreError(code: .unavailable, message: "Connection reset"))
    }

    @Test func aFirstRequestThatStartsNoSessionFailsNamingTheClosestAndWhatDiffers() async throws {
        let transport = ReplayTransport(cassette: Cassette(listenSessions: [try Self.session()]), name: "listen.json")
        let call = try Self.call(transport)
        try call.send(ListenTesting.addApple(resumeToken: [7]))
        let (taken, error) = await ListenTesting.collect(call)
        #expect(taken.isEmpty)
        #expect(
            error
                == FirestoreError(
                    code: .failedPrecondition,
                    message: "listen.json: no recorded Listen session starts with the request "
                        + #"{"addTarget":{"documents":{"documents":["projects/p/databases/(default)/documents/fruits/apple"]},"resumeToken":"Bw==","targetId":1},"database":"projects/p/databases/(default)"}"#
                        + "; closest is session 0, which differs at addTarget.resumeToken"))
    }

    @Test func aLaterRequestThatDiffersFromTheRecordedOneEndsTheCall() async throws {
        let remove = try ListenRequest(removing: 1, database: ListenTesting.database).protoJSON()
        let session = try Self.session(
            responses: [ListenTesting.appleResponses[0]],
            then: [.init(.request, remove), .init(.response, ListenTesting.appleResponses[3].protoJSON)])
        let transport = ReplayTransport(cassette: Cassette(listenSessions: [session]), name: "listen.json")
        let call = try Self.call(transport)
        try call.send(ListenTesting.addApple())
        let (taken, error) = await ListenTesting.collect(call) {
            try? call.send(ListenRequest(removing: 2, database: ListenTesting.database))
        }
        #expect(taken == [ListenTesting.appleResponses[0]])
        #expect(
            error
                == FirestoreError(
                    code: .failedPrecondition,
                    message: "listen.json: listenSessions[0].messages[2]: the client sent "
                        + #"{"database":"projects/p/databases/(default)","removeTarget":2} instead of the recorded request "#
                        + #"{"database":"projects/p/databases/(default)","removeTarget":1} (differs at removeTarget)"#))
    }

    @Test func responsesComeAtTheRecordedTimesDividedByTheSpeedOnTheInjectedClock() async throws {
        let clock = CountingClock()
        let session = try Self.session(times: [0.2, 0.2, 0.4, 1.0])
        let transport = ReplayTransport(
            cassette: Cassette(listenSessions: [session]), options: .init(pace: .recorded(speed: 2), clock: clock))
        let call = try Self.call(transport)
        try call.send(ListenTesting.addApple())
        #expect(try await ListenTesting.take(4, from: call) == ListenTesting.appleResponses)
        // 0.2 s / 2, then 0.4 s / 2, then 1.0 s / 2, each measured from the start of the call.
        #expect(clock.requestedDelays == [.milliseconds(100), .milliseconds(100), .milliseconds(300)])
        #expect(clock.now.offset == .milliseconds(500))
        call.cancel()
    }

    @Test func aPlayedSessionIsNotReplayedAgainUnlessRepeatsAreAllowed() async throws {
        let cassette = Cassette(listenSessions: [try Self.session(end: .finished)])
        let strict = ReplayTransport(cassette: cassette, name: "listen.json")
        let first = try Self.call(strict)
        try first.send(ListenTesting.addApple())
        #expect(await ListenTesting.collect(first).0 == ListenTesting.appleResponses)
        let second = try Self.call(strict)
        try second.send(ListenTesting.addApple())
        let (none, error) = await ListenTesting.collect(second)
        #expect(none.isEmpty)
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message.hasSuffix(
                ": session 0 was played (allowPlaybackRepeats repeats the last one)") == true,
            "\(String(describing: error))")

        let repeating = ReplayTransport(cassette: cassette, options: .init(allowPlaybackRepeats: true))
        for _ in 0..<2 {
            let call = try Self.call(repeating)
            try call.send(ListenTesting.addApple())
            #expect(await ListenTesting.collect(call).0 == ListenTesting.appleResponses)
        }
    }

    @Test func aCassetteWithoutListenSessionsCannotCarryAListenStream() throws {
        let transport = ReplayTransport(cassette: Cassette(), name: "polls.json")
        #expect(
            throws: FirestoreError(
                code: .unimplemented,
                message: "polls.json holds no recorded Listen session, so a Listen stream cannot be replayed from it")
        ) {
            try transport.makeListenChannel(for: try ListenTesting.client(transport))
        }
    }

    @Test func newEpisodesReplaysWhatMatchesAndRecordsTheOtherCalls() async throws {
        let live = FakeListenTransport()
        let transport = try ReplayTransport(
            cassette: Cassette(listenSessions: [try Self.session()]), mode: .newEpisodes, live: live)
        let channel = try transport.makeListenChannel(for: try ListenTesting.client(transport))
        let replayed = try channel.makeListenCall(metadata: [])
        try replayed.send(ListenTesting.addApple())
        #expect(try await ListenTesting.take(4, from: replayed) == ListenTesting.appleResponses)
        #expect(live.calls.withLock { $0.isEmpty })

        let recorded = try channel.makeListenCall(metadata: [])
        let other = ListenTesting.addApple(resumeToken: [1, 2, 3])
        try recorded.send(other)
        let fake = try await Self.firstCall(of: live)
        fake.respond(ListenTesting.appleResponses[3])
        fake.end(nil)
        let (taken, error) = await ListenTesting.collect(recorded)
        #expect(taken == [ListenTesting.appleResponses[3]])
        #expect(error == nil)
        #expect(fake.sent.withLock { $0 } == [other])
        let sessions = transport.cassette.listenSessions
        #expect(sessions.count == 2)
        #expect(sessions.last?.requests == [try other.protoJSON()])
        #expect(sessions.last?.end == .finished)
        replayed.cancel()
    }

    /// The first call the fake live transport got, once the replaying call has opened it.
    static func firstCall(of live: FakeListenTransport) async throws -> FakeListenCall {
        // At least 60 s: a guard against a hang, never a measure of speed.
        for _ in 0..<6000 {
            if let call = live.calls.withLock({ $0.first }) { return call }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw FirestoreError(code: .deadlineExceeded, message: "no live call within 60 s")
    }

    /// In session order a response waits for the interactions sent before it arrived (`afterInteractions`):
    /// the snapshot that a write caused comes after that write, as when it was recorded.
    @Test func inSessionOrderAResponseWaitsForTheInteractionsSentBeforeIt() async throws {
        let responses = ListenTesting.appleResponses
        var messages = [Cassette.ListenSession.Message(.request, try ListenTesting.addApple().protoJSON())]
        messages += responses.prefix(2).map { .init(.response, $0.protoJSON) }
        messages += responses.dropFirst(2).map { .init(.response, $0.protoJSON, afterInteractions: 1) }
        let write = Cassette.Interaction(
            request: Cassette.Request(method: "POST", path: "/commit"), response: Cassette.Response(status: 200))
        let cassette = Cassette(
            interactions: [write], listenSessions: [Cassette.ListenSession(messages: messages, end: .finished)])
        let transport = ReplayTransport(cassette: cassette, options: .init(ordering: .session))
        let call = try Self.call(transport)
        try call.send(ListenTesting.addApple())
        let taken = Mutex<[ListenResponse]>([])
        let consumer = Task {
            for try await response in call.responses { taken.withLock { $0.append(response) } }
        }
        // Held: the call waits with the third response until the write is played, and nothing more arrives
        // meanwhile (the call plays its responses in order). 60 s guard against a hang only.
        #expect(await eventually(seconds: 60) { taken.withLock { $0.count } == 2 && transport.heldCount == 1 })
        #expect(taken.withLock { $0 } == Array(responses.prefix(2)))
        #expect(try await transport.send(HTTPRequest(method: "POST", url: "http://h/commit")).status == 200)
        try await consumer.value
        #expect(taken.withLock { $0 } == responses)

        // `perRequest` order never holds a response back; neither does a cassette recorded without the counts.
        let unordered = ReplayTransport(cassette: cassette)
        let free = try Self.call(unordered)
        try free.send(ListenTesting.addApple())
        #expect(try await ListenTesting.take(4, from: free) == responses)
    }

    @Test func listenSessionsRoundTripThroughTheFileAndOldCassettesReadUnchanged() throws {
        let cassette = Cassette(listenSessions: [
            try Self.session(times: [0.001, 0.25, 0.5, 1.5], end: .cancelledByClient),
            Cassette.ListenSession(
                messages: [
                    .init(.request, try ListenTesting.addApple().protoJSON()),
                    .init(.response, [:], afterInteractions: 3),
                ]),
            try Self.session(responses: [], end: .finished),
            try Self.session(responses: [], end: .failed(code: .permissionDenied, message: "denied")),
            try Self.session(responses: [], end: nil),
        ])
        let data = cassette.jsonData()
        #expect(try Cassette(jsonData: data) == cassette)
        let old = Data(#"{"format":"firestore-feed-cassette","interactions":[],"version":1}"#.utf8)
        let read = try Cassette(jsonData: old)
        #expect(read.listenSessions.isEmpty)
        // Written back without a listenSessions member (RecordingsHygieneTests checks the old recordings byte for byte).
        #expect(!String(decoding: read.jsonData(), as: UTF8.self).contains("listenSessions"))
        #expect(String(decoding: cassette.jsonData(), as: UTF8.self).contains("\"listenSessions\""))
    }

    @Test func aMalformedListenSessionNamesTheMember() {
        func read(_ sessions: String) throws {
            _ = try Cassette(
                jsonData: Data(
                    #"{"format":"firestore-feed-cassette","interactions":[],"version":1,"listenSessions":\#(sessions)}"#
                        .utf8), source: "c.json")
        }
        #expect(throws: FirestoreError.invalidArgument("c.json: listenSessions: expected an array, found object")) {
            try read("{}")
        }
        #expect(
            throws: FirestoreError.invalidArgument(
                "c.json: listenSessions[0].messages[1]: expected exactly one of request and response")
        ) {
            try read(#"[{"method":"/m.S/L","messages":[{"request":{}},{"at":1}]}]"#)
        }
        #expect(
            throws: FirestoreError.invalidArgument(
                "c.json: listenSessions[0].end.code: expected OK or a google.rpc.Code name such as UNAVAILABLE, found NOPE"
            )
        ) {
            try read(#"[{"method":"/m.S/L","messages":[],"end":{"code":"NOPE"}}]"#)
        }
        #expect(
            throws: FirestoreError.invalidArgument(
                "c.json: listenSessions[0].messages[0].at: expected a number of seconds, 0 or more")
        ) {
            try read(#"[{"method":"/m.S/L","messages":[{"at":-1,"response":{}}]}]"#)
        }
    }
}
