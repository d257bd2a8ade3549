import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Testing

/// What a server sends on a Listen stream is bounded and checked: a target that never reaches a snapshot point
/// cannot grow memory without limit, a document outside the query is a protocol error (never data), a snapshot's read
/// time never goes backwards, and a resumed target sends `expected_count` so that a mismatch can be settled by the
/// server's bloom filter. Against `Scripts/grpc-script-server`.
@Suite(.timeLimit(.minutes(3))) struct ListenInputTests {
    typealias S = ListenScript

    /// 150 documents without a snapshot point, against a limit of 100 buffered changes: the target is listened to
    /// again from scratch (a new target ID, no resume token), and its real result follows.
    @Test func aTargetThatNeverBecomesCurrentIsBounded() async throws {
        var policy = ListenFaultFixture.policy
        policy.listenMaxPendingDocuments = 100
        let flood: [JSONValue] = [
            S.awaitRequests(1), S.target("ADD", [1]),
            [
                "respond": S.document(S.name("flood-{i}"), n: 1, updated: 5)["respond"] ?? .null,
                "repeat": 150,
            ],
            S.awaitRequests(3), S.target("ADD", [2]), S.document(S.name("a"), n: 1, updated: 10, targets: [2]),
            S.target("CURRENT", [2], token: [4]), S.point(10), S.hang,
        ]
        var fixture = try await ListenFaultFixture.start([flood], policy: policy)
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(
            fixture.events.lines == [
                "listenTargetReset: target 1 buffered 101 document changes without a consistent snapshot point (more "
                    + "than the limit of 100); listening to it again from scratch"
            ])
        let requests = await fixture.server.requests(call: 1, atLeast: 3)
        #expect(requests.count == 3)
        #expect(requests.dropFirst().first?["removeTarget"] == 1)
        #expect(requests.last?["addTarget"]?["targetId"] == 2)
        #expect(requests.last?["addTarget"]?["resumeToken"] == nil)
    }

    /// A document of another project, or of another collection, put into the target: the call is ended as a
    /// protocol error (retried), and the document never reaches the feed.
    @Test(arguments: [S.name("x", project: "someone-else"), S.name("x", collection: "vegetables")])
    func aDocumentOutsideTheQueryIsAProtocolError(foreign: String) async throws {
        var fixture = try await ListenFaultFixture.start([
            [S.awaitRequests(1), S.target("ADD", [1]), S.document(foreign, n: 1, updated: 5), S.hang],
            S.snapshot(["a"], token: [1], readTime: 10) + [S.hang],
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(
            fixture.events.lines == [
                "listenFailed internal: Listen: the server sent document \(foreign) for target 1, which is outside its "
                    + "query (collection \"fruits\" under projects/demo-faults/databases/(default)/documents): a "
                    + "protocol error, not data",
                "listenRecovered",
            ])
    }

    /// A message that does not decode as a ListenResponse (field number 0: the bytes of a restarted emulator were
    /// seen to do this once) fails that stream, naming the bytes; the feed listens again and keeps its state.
    @Test func aMessageThatDoesNotDecodeIsAProtocolErrorOfTheStream() async throws {
        var fixture = try await ListenFaultFixture.start([
            [S.awaitRequests(1), S.target("ADD", [1]), ["respondHex": "00"], S.hang],
            S.snapshot(["a"], token: [1], readTime: 10) + [S.hang],
        ])
        #expect(try await fixture.nextIDs() == ["a"])
        #expect(
            fixture.events.lines == [
                "listenFailed internal: Listen: the server sent a message that does not decode as a ListenResponse (1 "
                    + "byte: 00): ListenResponse: field number 0 at byte 0; a protocol error, not data",
                "listenRecovered",
            ])
    }

    /// A snapshot point read before the last one (as the emulator sends after a resume) publishes nothing: its
    /// changes wait for the next point after the published one, so the feed's read time never goes back and no
    /// snapshot holds an older version under a later time.
    @Test func aReadTimeNeverGoesBackwards() async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a"], token: [1], readTime: 30) + [
                S.document(S.name("b"), n: 2, updated: 20), S.point(20), S.point(31), S.hang,
            ]
        ])
        let first = try #require(try await fixture.feed.next())
        let second = try #require(try await fixture.feed.next())
        #expect(first.readTime?.rfc3339 == "2026-01-01T00:00:30Z")
        #expect(second.documents.map(\.documentID) == ["a", "b"])
        #expect(second.readTime?.rfc3339 == "2026-01-01T00:00:31Z")
    }

    /// A resumed target sends `expected_count` (the 3 documents it holds); the server answers that only 2 remain with a
    /// bloom filter of the unchanged names: the missing document is removed without listening again from scratch.
    @Test func aResumedTargetSendsExpectedCountAndABloomFilterSettlesTheMismatch() async throws {
        var fixture = try await ListenFaultFixture.start([
            S.snapshot(["a", "b", "c"], token: [1], readTime: 10) + [S.end(14, "restart")],
            [
                S.awaitRequests(1), S.target("ADD", [1]),
                [
                    "existenceFilter": [
                        "targetId": 1, "count": 2, "names": [.string(S.name("a")), .string(S.name("c"))],
                        "bits": 64, "hashCount": 3,
                    ]
                ],
                S.target("CURRENT", [1], token: [2]), S.point(20), S.hang,
            ],
        ])
        #expect(try await fixture.nextIDs() == ["a", "b", "c"])
        let second = try #require(try await fixture.feed.next())
        #expect(second.documents.map(\.documentID) == ["a", "c"])
        #expect(second.documentChanges.map { "\($0.type) \($0.document.documentID)" } == ["removed b"])
        let resume = try #require(await fixture.server.requests(call: 2, atLeast: 1).first)
        #expect(resume["addTarget"]?["expectedCount"] == 3)
        #expect(resume["addTarget"]?["resumeToken"] == "AQ==")
        #expect(fixture.events.lines == ["listenFailed unavailable: restart", "listenRecovered"])
        #expect(fixture.server.requests(call: 2).count == 1)
    }
}
