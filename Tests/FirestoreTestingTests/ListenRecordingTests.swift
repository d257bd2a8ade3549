import FirestoreFeed
import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// `RecordingTransport` records the Listen calls made through it: requests and responses in proto3 JSON with
/// their times since the call started, how the call ended, secrets scrubbed; the cassette file keeps them.
@Suite(.timeLimit(.minutes(2))) struct ListenRecordingTests {
    @Test func aCallIsRecordedAsItsMessagesWithTheirTimesAndItsEnd() async throws {
        let live = FakeListenTransport()
        let clock = ManualClock()
        let recorder = RecordingTransport(wrapping: live, options: .init(clock: clock))
        let db = try ListenTesting.client(recorder)
        let call = try recorder.makeListenChannel(for: db).makeListenCall(metadata: [
            HTTPHeader("Authorization", "Bearer ya29.a-real-access-token"),
            HTTPHeader("google-cloud-resource-prefix", ListenTesting.database),
        ])
        clock.advance(by: .milliseconds(2))
        try call.send(ListenTesting.addApple())
        let fake = try #require(live.calls.withLock { $0.first })
        #expect(fake.sent.withLock { $0 } == [ListenTesting.addApple()])
        #expect(fake.metadata.first?.value == "Bearer ya29.a-real-access-token")  // the live call keeps the secret
        for response in ListenTesting.appleResponses { fake.respond(response) }
        fake.end(FirestoreError(code: .unavailable, message: "the emulator went away"))
        let (taken, error) = await ListenTesting.collect(call) { clock.advance(by: .milliseconds(5)) }
        #expect(taken == ListenTesting.appleResponses)
        #expect(error == FirestoreError(code: .unavailable, message: "the emulator went away"))

        let session = try #require(recorder.cassette.listenSessions.first)
        #expect(recorder.cassette.listenSessions.count == 1)
        #expect(
            session.json.serializedString(pretty: true) == """
                {
                  "end": {
                    "code": "UNAVAILABLE",
                    "message": "the emulator went away"
                  },
                  "messages": [
                    {
                      "at": 0.002,
                      "request": {
                        "addTarget": {
                          "documents": {
                            "documents": [
                              "projects/p/databases/(default)/documents/fruits/apple"
                            ]
                          },
                          "targetId": 1
                        },
                        "database": "projects/p/databases/(default)"
                      }
                    },
                    {
                      "at": 0.002,
                      "response": {
                        "targetChange": {
                          "targetChangeType": "ADD",
                          "targetIds": [
                            1
                          ]
                        }
                      }
                    },
                    {
                      "at": 0.007,
                      "response": {
                        "documentChange": {
                          "document": {
                            "createTime": "1970-01-01T00:01:40Z",
                            "fields": {
                              "name": {
                                "stringValue": "Apple"
                              }
                            },
                            "name": "projects/p/databases/(default)/documents/fruits/apple",
                            "updateTime": "1970-01-01T00:01:40Z"
                          },
                          "targetIds": [
                            1
                          ]
                        }
                      }
                    },
                    {
                      "at": 0.012,
                      "response": {
                        "targetChange": {
                          "resumeToken": "AQID",
                          "targetChangeType": "CURRENT",
                          "targetIds": [
                            1
                          ]
                        }
                      }
                    },
                    {
                      "at": 0.017,
                      "response": {
                        "targetChange": {
                          "readTime": "1970-01-01T00:01:41Z"
                        }
                      }
                    }
                  ],
                  "metadata": {
                    "authorization": "Bearer <REDACTED>",
                    "google-cloud-resource-prefix": "projects/p/databases/(default)"
                  },
                  "method": "/google.firestore.v1.Firestore/Listen"
                }
                """)
    }

    @Test func aCancelledCallEndsAsCancelledByTheClientAndTheFileKeepsIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("listen-recording-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("listen.json").path
        let live = FakeListenTransport()
        let recorder = RecordingTransport(wrapping: live, savingTo: path)
        let call = try recorder.makeListenChannel(for: try ListenTesting.client(recorder)).makeListenCall(metadata: [])
        try call.send(ListenTesting.addApple())
        // Saved after the request, before any response.
        #expect(try Cassette(contentsOfFile: path).listenSessions.first?.requests.count == 1)
        let fake = try #require(live.calls.withLock { $0.first })
        fake.respond(ListenTesting.appleResponses[0])
        let (taken, error) = await ListenTesting.collect(call) {
            // The client leaves once it has the first response: it removes its target and cancels.
            try? call.send(ListenRequest(removing: 1, database: ListenTesting.database))
            call.cancel()
        }
        #expect(taken == [ListenTesting.appleResponses[0]])
        #expect(error?.code == .cancelled)
        let saved = try Cassette(contentsOfFile: path)
        let session = try #require(saved.listenSessions.first)
        #expect(session.end == .cancelledByClient)
        #expect(session.messages.map(\.direction) == [.request, .response, .request])
        #expect(session.requests.last == ["database": "projects/p/databases/(default)", "removeTarget": 1])
        #expect(saved.interactions.isEmpty)
    }

    @Test func aLiveTransportWithoutListenStreamsIsRefusedWithTheReason() throws {
        let recorder = RecordingTransport(wrapping: ScriptedTransport([]))
        #expect(
            throws: FirestoreError(
                code: .unimplemented,
                message: "the recording transport's live transport (ScriptedTransport) cannot open a Listen stream")
        ) {
            try recorder.makeListenChannel(for: try ListenTesting.client(recorder))
        }
    }

    @Test func aTokenInAListenMessageIsScrubbedEverywhereInTheCassette() throws {
        let token = "ya29.a-leaked-token-value"
        let cassette = Cassette(listenSessions: [
            Cassette.ListenSession(
                metadata: [HTTPHeader("authorization", "Bearer \(token)")],
                messages: [
                    .init(.request, ["database": .string(ListenTesting.database), "labels": ["note": .string(token)]]),
                    .init(.response, ["targetChange": ["cause": ["message": .string("bad token \(token)")]]], at: 0.1),
                ],
                end: .failed(code: .unauthenticated, message: "token \(token) expired"))
        ])
        let scrubbed = SecretScrubber.standard.scrub(cassette)
        let text = String(decoding: scrubbed.jsonData(), as: UTF8.self)
        #expect(!text.contains(token))
        let session = try #require(scrubbed.listenSessions.first)
        #expect(session.metadata == [HTTPHeader("authorization", "Bearer <REDACTED>")])
        #expect(session.requests.first?["labels"]?["note"] == "<REDACTED>")
        #expect(session.responses.first?["targetChange"]?["cause"]?["message"] == "bad token <REDACTED>")
        #expect(session.end == .failed(code: .unauthenticated, message: "token <REDACTED> expired"))
    }
}
