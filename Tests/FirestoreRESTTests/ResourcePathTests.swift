import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

@Suite("ResourcePath", .timeLimit(.minutes(2)))
struct ResourcePathTests {
    @Test(arguments: [
        ("a#b", "a%23b"),
        ("50%off", "50%25off"),
        ("hello world", "hello%20world"),
        ("ü", "%C3%BC"),
        ("(default)", "(default)"),
        ("AZaz09-._~", "AZaz09-._~"),
        ("a/b", "a%2Fb"),
        ("a&b=c", "a%26b%3Dc"),
        ("a+b", "a%2Bb"),
        ("q?x", "q%3Fx"),
        ("😀", "%F0%9F%98%80"),
        ("`*'!:@$,;", "%60%2A%27%21%3A%40%24%2C%3B"),
        ("", ""),
    ])
    func percentEncodes(text: String, expected: String) {
        #expect(ResourcePath.percentEncode(text) == expected)
    }

    @Test func urlEncodedEncodesEachSegment() throws {
        let path = try ResourcePath(segments: ["c", "hello world", "sub", "ü", "col", "50%off#1"])
        #expect(path.urlEncoded == "c/hello%20world/sub/%C3%BC/col/50%25off%231")
        #expect(path.description == "c/hello world/sub/ü/col/50%off#1")
    }

    @Test func parsesSlashSeparatedPath() throws {
        let path = try ResourcePath("fruits/apple/reviews/r1")
        #expect(path.segments == ["fruits", "apple", "reviews", "r1"])
        #expect(path.isDocument)
        #expect(!path.isCollection)
        #expect(path.lastSegment == "r1")
        #expect(path.parent.segments == ["fruits", "apple", "reviews"])
        #expect(path.parent.isCollection)
    }

    @Test func emptyStringIsTheRoot() throws {
        let root = try ResourcePath("")
        #expect(root.segments == [])
        #expect(root == ResourcePath.root)
        #expect(!root.isDocument)
        #expect(!root.isCollection)
        #expect(root.lastSegment == "")
        #expect(root.parent.segments == [])
        #expect(root.description == "")
    }

    @Test(arguments: ["a//b", "/a", "a/", "/", "//", "a/./b", "a/../b", ".", "..", "c/d/..", "./c"])
    func refusesMalformedPath(text: String) {
        let error = #expect(throws: FirestoreError.self) { try ResourcePath(text) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func emptySegmentErrorNamesThePosition() {
        let error = #expect(throws: FirestoreError.self) { try ResourcePath("a//b") }
        #expect(error?.message.contains("\"a//b\"") == true)
        #expect(error?.message.contains("position 1") == true)
    }

    @Test(arguments: [["a/b"], [""], ["."], [".."], ["c", "d/e"], ["c", ""], ["/"]])
    func refusesInvalidSegments(segments: [String]) {
        let error = #expect(throws: FirestoreError.self) { try ResourcePath(segments: segments) }
        #expect(error?.code == .invalidArgument)
    }

    @Test(arguments: [["..."], ["a.b"], [".hidden"], ["a b", "%", "#", "?"], ["(default)"], ["__x__"]])
    func acceptsUnusualIDs(segments: [String]) throws {
        #expect(try ResourcePath(segments: segments).segments == segments)
    }

    /// Firestore refuses a NUL in an ID: it is refused before anything is sent, the ID and the path written with
    /// the NUL made visible, and the ID's position named.
    @Test func refusesANulInAnID() {
        #expect(
            throws: FirestoreError.invalidArgument(
                #"invalid ID "a\u{0}b" at position 1 of path "c/a\u{0}b": an ID cannot contain NUL (U+0000)"#)
        ) { try ResourcePath(segments: ["c", "a\u{0}b"]) }
        #expect(
            throws: FirestoreError.invalidArgument(
                #"invalid ID "\u{0}" at position 2 of path "c/d/\u{0}/e": an ID cannot contain NUL (U+0000)"#)
        ) { try ResourcePath("c/d/\u{0}/e") }
        #expect(
            throws: FirestoreError.invalidArgument(
                #"invalid ID "x\u{0}" at position 1 of path "c/x\u{0}": an ID cannot contain NUL (U+0000)"#)
        ) { try ResourcePath("c").appending("x\u{0}") }
    }

    /// Appending checks only the IDs appended: a path the server named keeps its NUL, and grows.
    @Test func aNulTheServerNamedIsKept() throws {
        let database = try DatabaseID(projectID: "p")
        let named = try database.path(ofResourceName: "projects/p/databases/(default)/documents/c/a\u{0}b")
        #expect(named.segments == ["c", "a\u{0}b"])
        #expect(try named.appending("sub").appending(path: "d/e").segments == ["c", "a\u{0}b", "sub", "d", "e"])
        #expect(try named.appending(serverID: "s\u{0}").segments == ["c", "a\u{0}b", "s\u{0}"])
        #expect(
            throws: FirestoreError.invalidArgument(
                #"invalid ID "x\u{0}" at position 3 of path "c/a\u{0}b/sub/x\u{0}": "#
                    + "an ID cannot contain NUL (U+0000)")
        ) { try named.appending(path: "sub/x\u{0}") }
        #expect(throws: FirestoreError.self) {
            try database.path(ofResourceName: "projects/p/databases/(default)/documents/c//d")
        }
    }

    /// The library refuses only NUL among the control characters; the others are left to the server.
    @Test func acceptsOtherControlCharacters() throws {
        #expect(try ResourcePath(segments: ["c", "a\u{1}\tb\u{7F}"]).segments == ["c", "a\u{1}\tb\u{7F}"])
    }

    @Test func appending() throws {
        let collection = try ResourcePath("c")
        #expect(try collection.appending("d").segments == ["c", "d"])
        #expect(try collection.appending(path: "d/sub").segments == ["c", "d", "sub"])
        #expect(throws: FirestoreError.self) { try collection.appending("x/y") }
        #expect(throws: FirestoreError.self) { try collection.appending("") }
        #expect(throws: FirestoreError.self) { try collection.appending("..") }
        #expect(throws: FirestoreError.self) { try collection.appending(path: "d//e") }
    }
}

@Suite("DatabaseID", .timeLimit(.minutes(2)))
struct DatabaseIDTests {
    @Test func names() throws {
        let database = try DatabaseID(projectID: "p")
        #expect(database.name == "projects/p/databases/(default)")
        #expect(database.documentsRoot == "projects/p/databases/(default)/documents")
        #expect(database.resourceName(of: .root) == "projects/p/databases/(default)/documents")
        #expect(
            database.resourceName(of: try ResourcePath("c/d"))
                == "projects/p/databases/(default)/documents/c/d")
        #expect(try DatabaseID(projectID: "p", databaseID: "named").name == "projects/p/databases/named")
    }

    @Test func pathOfResourceName() throws {
        let database = try DatabaseID(projectID: "p")
        #expect(
            try database.path(ofResourceName: "projects/p/databases/(default)/documents/c/d").segments == ["c", "d"])
        #expect(try database.path(ofResourceName: "projects/p/databases/(default)/documents").segments == [])
        #expect(throws: FirestoreError.self) {
            try database.path(ofResourceName: "projects/other/databases/(default)/documents/c/d")
        }
        #expect(throws: FirestoreError.self) {
            try database.path(ofResourceName: "projects/p/databases/(default)/documents/c//d")
        }
    }

    @Test(arguments: [("", "(default)"), ("a/b", "(default)"), ("p", ""), ("p", "x/y")])
    func refusesBadIDs(projectID: String, databaseID: String) {
        #expect(throws: FirestoreError.self) { try DatabaseID(projectID: projectID, databaseID: databaseID) }
    }

    @Test func requestURLsPercentEncodeDocumentIDs() throws {
        let db = try Firestore.offline()
        let path = try ResourcePath(segments: ["c", "a#b c"])
        #expect(db.encodedName(of: path) == "projects/p/databases/(default)/documents/c/a%23b%20c")
        #expect(
            db.url(db.encodedName(of: path))
                == "http://127.0.0.1:1/v1/projects/p/databases/(default)/documents/c/a%23b%20c")
        #expect(db.document("c/a b").resourceName == "projects/p/databases/(default)/documents/c/a b")
    }
}
