import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// The cassette file: its exact text, round trips, and errors naming the faulty member.
@Suite(.timeLimit(.minutes(2))) struct CassetteFormatTests {
    static let sample = Cassette(interactions: [
        Cassette.Interaction(
            request: Cassette.Request(
                method: "POST", path: "/v1/projects/p/databases/(default)/documents:runQuery",
                headers: [HTTPHeader("content-type", "application/json")],
                body: Data(#"{"structuredQuery":{"from":[{"collectionId":"c"}]}}"#.utf8)),
            response: Cassette.Response(
                status: 200, headers: [HTTPHeader("content-type", "application/json")],
                body: Data("[{\n  \"readTime\": \"2024-05-01T00:00:00Z\"\n}\n]".utf8)),
            elapsed: 0, duration: 0.004),
        Cassette.Interaction(
            request: Cassette.Request(method: "GET", path: "/v1/projects/p/databases/(default)/documents/c/d"),
            response: Cassette.Response(
                status: 429,
                headers: [HTTPHeader("retry-after", "7"), HTTPHeader("x-two", "a"), HTTPHeader("x-two", "b")],
                body: Data([0xFF, 0x00, 0x41])),
            elapsed: 1.25, duration: 0.5),
    ])

    @Test func theFileIsPrettySortedAndStable() {
        let text = String(decoding: Self.sample.jsonData(), as: UTF8.self)
        #expect(
            text == #"""
                {
                  "format": "firestore-feed-cassette",
                  "interactions": [
                    {
                      "duration": 0.004,
                      "elapsed": 0.0,
                      "request": {
                        "body": "{\"structuredQuery\":{\"from\":[{\"collectionId\":\"c\"}]}}",
                        "headers": {
                          "content-type": "application/json"
                        },
                        "method": "POST",
                        "path": "/v1/projects/p/databases/(default)/documents:runQuery"
                      },
                      "response": {
                        "body": "[{\n  \"readTime\": \"2024-05-01T00:00:00Z\"\n}\n]",
                        "headers": {
                          "content-type": "application/json"
                        },
                        "status": 200
                      }
                    },
                    {
                      "duration": 0.5,
                      "elapsed": 1.25,
                      "request": {
                        "method": "GET",
                        "path": "/v1/projects/p/databases/(default)/documents/c/d"
                      },
                      "response": {
                        "bodyBase64": "/wBB",
                        "headers": {
                          "retry-after": "7",
                          "x-two": [
                            "a",
                            "b"
                          ]
                        },
                        "status": 429
                      }
                    }
                  ],
                  "version": 1
                }

                """#)
    }

    @Test func readingTheFileGivesTheSameCassette() throws {
        let read = try Cassette(jsonData: Self.sample.jsonData())
        #expect(read == Self.sample)
        #expect(read.jsonData() == Self.sample.jsonData())
        #expect(read.database == (try DatabaseID(projectID: "p")))
    }

    @Test func writeAndReadAFile() throws {
        let path = NSTemporaryDirectory() + "cassette-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Self.sample.write(toFile: path)
        #expect(try Cassette(contentsOfFile: path) == Self.sample)
    }

    @Test func aRecordedRequestKeepsPathAndQueryAndACanonicalBody() {
        let request = Cassette.Request(
            HTTPRequest(
                method: "post", url: "http://127.0.0.1:8080/v1/projects/p/databases/(default)/documents:runQuery?x=1",
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: Data("{ \"b\" : [1, 2.5],\n \"a\": {\"z\": true, \"y\": null} }".utf8)))
        #expect(request.method == "POST")
        #expect(request.path == "/v1/projects/p/databases/(default)/documents:runQuery?x=1")
        #expect(request.headers == [HTTPHeader("content-type", "application/json")])
        #expect(request.body == Data(#"{"a":{"y":null,"z":true},"b":[1,2.5]}"#.utf8))
        #expect(Cassette.Request.pathAndQuery(of: "https://firestore.googleapis.com") == "/")
        #expect(Cassette.Request.pathAndQuery(of: "http://h:1?x=1") == "/?x=1")
        #expect(Cassette.Request.pathAndQuery(of: "/already/a/path") == "/already/a/path")
        #expect(Cassette.canonicalBody(Data("not json {".utf8)) == Data("not json {".utf8))
    }

    @Test func malformedFilesAreErrorsNamingTheMember() {
        func message(_ text: String) -> String? {
            do {
                _ = try Cassette(jsonData: Data(text.utf8), source: "t.json")
                return nil
            } catch {
                return "\(error.code.name): \(error.message)"
            }
        }
        #expect(
            message("{") == "invalid-argument: t.json: not a cassette: invalid JSON at byte 1: expected a string key")
        #expect(
            message(#"{"format":"x","version":1,"interactions":[]}"#)
                == #"invalid-argument: t.json: not a cassette: "format" is not "firestore-feed-cassette""#)
        #expect(
            message(#"{"format":"firestore-feed-cassette","version":2,"interactions":[]}"#)
                == "invalid-argument: t.json: unsupported cassette version 2 (this reader knows version 1)")
        #expect(
            message(#"{"format":"firestore-feed-cassette","version":1}"#)
                == "invalid-argument: t.json: interactions: missing")
        #expect(
            message(
                #"""
                {"format":"firestore-feed-cassette","version":1,"interactions":[
                 {"request":{"method":"GET","path":"/"},"response":{"status":200}},
                 {"request":{"method":"GET","path":"/"},"response":{"status":"200"}}]}
                """#)
                == "invalid-argument: t.json: interactions[1].response.status: expected a whole number from 100 to 999")
        #expect(
            message(
                #"""
                {"format":"firestore-feed-cassette","version":1,"interactions":[
                 {"request":{"method":"GET"},"response":{"status":200}}]}
                """#) == "invalid-argument: t.json: interactions[0].request.path: missing")
        #expect(
            message(
                #"""
                {"format":"firestore-feed-cassette","version":1,"interactions":[
                 {"request":{"method":"GET","path":"/","headers":{"a":3}},"response":{"status":200}}]}
                """#)
                == "invalid-argument: t.json: interactions[0].request.headers.a: expected a string or an array of strings"
        )
        #expect(
            message(
                #"""
                {"format":"firestore-feed-cassette","version":1,"interactions":[
                 {"request":{"method":"GET","path":"/"},"response":{"status":200,"bodyBase64":"%%"}}]}
                """#) == "invalid-argument: t.json: interactions[0].response.bodyBase64: not valid base64")
        #expect(
            message(
                #"""
                {"format":"firestore-feed-cassette","version":1,"interactions":[
                 {"request":{"method":"GET","path":"/"},"response":{"status":200},"elapsed":-1}]}
                """#) == "invalid-argument: t.json: interactions[0].elapsed: expected a number of seconds, 0 or more")
    }

    @Test func aMissingFileIsNotFound() {
        #expect(throws: FirestoreError(code: .notFound, message: "no cassette at /nonexistent/c.json")) {
            try Cassette(contentsOfFile: "/nonexistent/c.json")
        }
    }

    @Test func theDatabaseComesFromTheFirstRequestThatNamesOne() {
        let cassette = Cassette(interactions: [
            Cassette.Interaction(
                request: Cassette.Request(method: "POST", path: "/token"), response: Cassette.Response(status: 200)),
            Cassette.Interaction(
                request: Cassette.Request(
                    method: "POST", path: "/v1/projects/demo-x/databases/(default)/documents:commit"),
                response: Cassette.Response(status: 200)),
        ])
        #expect(cassette.database?.projectID == "demo-x")
        #expect(cassette.database?.databaseID == "(default)")
        #expect(Cassette().database == nil)
    }
}
