import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreWire

/// Regression tests for faults found by feeding the client hostile input: each input is written out with
/// the behaviour the project promises (no trap, no silent change, a clear error naming where).
@Suite(.timeLimit(.minutes(2))) struct HostileInputTests {
    @Test func skippedResultsOverflowIsAnErrorNotATrap() throws {
        #expect(
            throws: FirestoreError(
                code: .internal,
                message:
                    "runQuery element 0: skippedResults 9223372036854775807 is not a count")
        ) {
            try Firestore.decodeRunQuery(json(#"[{"skippedResults":9223372036854775807},{"skippedResults":1}]"#))
        }
        #expect(
            throws: FirestoreError(code: .internal, message: "runQuery element 0: skippedResults -5 is not a count")
        ) {
            try Firestore.decodeRunQuery(json(#"[{"readTime":"2024-05-01T00:00:00Z","skippedResults":-5}]"#))
        }
    }

    @Test func numbersBeyondADoubleAreRefused() throws {
        #expect(throws: JSONParseError(reason: "number out of the range of a double", offset: 15)) {
            try JSONValue.parse(#"{"doubleValue":1e400}"#)
        }
    }

    @Test func integerFromAnInexactDoubleIsRefused() throws {
        #expect(throws: FirestoreError.self) { try decodeValue(#"{"integerValue":9007199254740993.0}"#) }
        #expect(throws: FirestoreError.self) { try decodeValue(#"{"integerValue":9007199254740992.0}"#) }
        #expect(try decodeValue(#"{"integerValue":9007199254740991.0}"#) == .integer(9_007_199_254_740_991))
    }

    @Test(arguments: ["====", "AA=A", "AAAA====", "A", "AB$C"])
    func malformedBase64IsRefused(text: String) throws {
        #expect(throws: FirestoreError.self) { try decodeValue(#"{"bytesValue":"\#(text)"}"#) }
    }

    @Test func wellFormedBase64VariantsDecode() throws {
        #expect(try decodeValue(#"{"bytesValue":"AAEC/w=="}"#) == .bytes(Data([0, 1, 2, 255])))
        #expect(try decodeValue(#"{"bytesValue":"AAEC_w"}"#) == .bytes(Data([0, 1, 2, 255])))
        #expect(try decodeValue(#"{"bytesValue":""}"#) == .bytes(Data()))
    }

    @Test func nanDateDoesNotTrap() {
        #expect(Timestamp(date: Date(timeIntervalSince1970: .nan)) == Timestamp.minimum)
        #expect(Timestamp(date: Date(timeIntervalSince1970: .infinity)).seconds == 253_402_300_799)
    }

    /// `/` followed by a combining mark is one Swift Character but still a path separator.
    @Test func pathsSplitOnBytes() throws {
        #expect(try ResourcePath("c/\u{301}d").segments == ["c", "\u{301}d"])
        #expect(try ResourcePath("c/\u{200D}d").segments == ["c", "\u{200D}d"])
        #expect(throws: FirestoreError.self) { try ResourcePath(segments: ["c/\u{301}d"]) }
        #expect(try FieldPath(dotted: "a.\u{301}b").segments == ["a", "\u{301}b"])
        #expect(Document(name: "projects/p/databases/(default)/documents/c/\u{301}x").id == "\u{301}x")
    }

    @Test(arguments: ["..", "p#x", "p?x=1", "p q", "", ".p"])
    func projectIDsThatWouldBreakURLsAreRefused(projectID: String) {
        #expect(throws: FirestoreError.self) { try DatabaseID(projectID: projectID) }
    }

    @Test func domainScopedProjectIsAccepted() throws {
        #expect(
            try DatabaseID(projectID: "example.com:my-app").documentsRoot
                == "projects/example.com:my-app/databases/(default)/documents")
    }

    @Test(arguments: ["127.0.0.1:99999", "127.0.0.1:9?x", "127.0.0.1", "host:0", ":8080", "a b:1", "[::1"])
    func malformedEmulatorHostsAreRefused(host: String) {
        #expect(throws: FirestoreError.self) { try Firestore.emulator(host: host, projectID: "p") }
    }

    @Test(arguments: ["127.0.0.1:8080", "localhost:1", "[::1]:8080", "http://emu.local:9000/"])
    func wellFormedEmulatorHostsAreAccepted(host: String) throws {
        #expect(try Firestore.emulator(host: host, projectID: "p").baseURL.hasSuffix("/v1/"))
    }

    @Test func errorBodiesWithAStringErrorKeepTheText() {
        let error = FirestoreError(status: 500, body: Data(#"{"error":"Internal failure in backend"}"#.utf8))
        #expect(error == FirestoreError(code: .internal, message: "Internal failure in backend", httpStatus: 500))
        #expect(throws: FirestoreError(code: .internal, message: "backend melted", httpStatus: 200)) {
            try Firestore.decodeRunQuery(json(#"[{"error":"backend melted"}]"#))
        }
    }

    @Test func aProxy404IsNotAMissingDocument() async throws {
        let html = FirestoreError(status: 404, body: Data("<html>Not Found</html>".utf8))
        #expect(html.code == .notFound)
        #expect(html.isServerStatus == false)
        let server = FirestoreError(status: 404, body: Data(#"{"error":{"code":404,"status":"NOT_FOUND"}}"#.utf8))
        #expect(server.isServerStatus == true)
    }

    @Test func pagingRefusesMalformedPages() async throws {
        let db = try Firestore.emulator(host: "127.0.0.1:1", projectID: "p")
        await #expect(throws: FirestoreError(code: .internal, message: "list c: documents is a string, not an array")) {
            _ = try await db.collectPages("list c", listKey: "documents") { _ in
                ["documents": "x"]
            } decode: {
                $1
            }
        }
        await #expect(throws: FirestoreError(code: .internal, message: "list c: nextPageToken is a number")) {
            _ = try await db.collectPages("list c", listKey: "documents") { _ in
                ["nextPageToken": 3]
            } decode: {
                $1
            }
        }
        await #expect(throws: FirestoreError(code: .internal, message: "list c: the server repeated page token t")) {
            _ = try await db.collectPages("list c", listKey: "documents") { _ in
                ["nextPageToken": "t"]
            } decode: {
                $1
            }
        }
    }
}
