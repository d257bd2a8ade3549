import FirestoreREST
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

/// ``Firestore/recursiveDelete(_:bulkWriter:)-(CollectionReference,_)`` against the real emulator: a three-level
/// tree with documents that exist only as parents of subcollections ("missing" documents), deleted through a
/// ``BulkWriter`` whose callback lists every delete; nothing of the tree remains and nothing beside it goes.
@Suite(.timeLimit(.minutes(2))) struct RecursiveDeleteLiveTests {
    /// The tree under `users`: `users/ghost` and `users/alice/posts/draft` do not exist, they only hold
    /// subcollections. Beside it: `others/keep` (with a subcollection of its own) and `users-archive/keep`.
    static let tree = [
        "users/alice", "users/alice/posts/p1", "users/alice/posts/p1/comments/c1", "users/alice/posts/p1/comments/c2",
        "users/alice/posts/draft/comments/c4", "users/bob", "users/ghost/posts/p2", "users/ghost/posts/p2/comments/c3",
    ]
    static let beside = ["others/keep", "others/keep/notes/n1", "users-archive/keep"]

    final class Deleted: Sendable {
        let paths = Mutex<[String]>([])
        func add(_ path: String) { paths.withLock { $0.append(path) } }
        var sorted: [String] { paths.withLock { $0.sorted() } }
    }

    static func seed(_ label: String) async throws -> Firestore {
        let db = try LiveFirestore.make(label)
        for path in tree + beside { try await db.document(path).setData(["p": .value(.string(path))]) }
        return db
    }

    @Test func aCollectionWithMissingParentsGoesWhole() async throws {
        let db = try await Self.seed("recursive-collection")
        // The missing documents are listed as such before.
        let users = try await db.collection("users").listDocuments(showMissing: true)
        #expect(users.map { "\($0.documentID) \($0.exists)" } == ["alice true", "bob true", "ghost false"])
        let writer = try db.bulkWriter()
        let deleted = Deleted()
        writer.onWriteResult { document, _ in deleted.add(document.path) }
        let count = try await db.recursiveDelete(db.collection("users"), bulkWriter: writer)
        #expect(count == 8)
        #expect(
            deleted.sorted == [
                "users/alice", "users/alice/posts/draft/comments/c4", "users/alice/posts/p1",
                "users/alice/posts/p1/comments/c1", "users/alice/posts/p1/comments/c2", "users/bob",
                "users/ghost/posts/p2", "users/ghost/posts/p2/comments/c3",
            ])
        // What remains of the tree: nothing, missing documents included; beside it, everything.
        #expect(try await db.collection("users").listDocuments(showMissing: true).map(\.documentID) == [])
        #expect(try await db.collectionGroup("comments").getDocuments().documents.map(\.documentID) == [])
        #expect(try await db.collectionGroup("posts").getDocuments().documents.map(\.documentID) == [])
        #expect(try await db.listCollectionIds() == ["others", "users-archive"])
        for path in Self.beside { #expect(try await db.document(path).getDocument().exists, "\(path)") }
        // The caller's writer was flushed, not closed.
        #expect(!writer.isClosed)
        try await writer.close()
        // Deleting it again deletes nothing.
        #expect(try await db.recursiveDelete(db.collection("users")) == 0)
    }

    /// A document and its subcollections go; its siblings and its parent collection's other documents stay.
    @Test func aDocumentAndEverythingBelowIt() async throws {
        let db = try await Self.seed("recursive-document")
        let count = try await db.recursiveDelete(db.document("users/alice"))
        #expect(count == 5)
        #expect(
            try await db.collection("users").listDocuments(showMissing: true).map(\.documentID) == ["bob", "ghost"])
        #expect(
            try await db.collectionGroup("comments").getDocuments().documents.map { $0.reference.path } == [
                "users/ghost/posts/p2/comments/c3"
            ])
        // A missing document (the parent of a subcollection only) can be the starting point too; the starting
        // document is always deleted and counted, as in the Python SDK (listing cannot tell whether it exists).
        #expect(try await db.recursiveDelete(db.document("users/ghost")) == 3)
        #expect(try await db.collection("users").listDocuments(showMissing: true).map(\.documentID) == ["bob"])
        #expect(try await db.document("others/keep/notes/n1").getDocument().exists)
    }

    /// A writer of another database, and a closed one, are refused before anything is listed.
    @Test func theWriterMustBeOpenAndOfThisDatabase() async throws {
        let db = try await Self.seed("recursive-writer")
        let other = try LiveFirestore.make("recursive-other")
        await #expect(throws: FirestoreError.self) {
            try await db.recursiveDelete(db.collection("users"), bulkWriter: try other.bulkWriter())
        }
        let closed = try db.bulkWriter()
        try await closed.close()
        await #expect(throws: FirestoreError.invalidArgument("recursiveDelete: the BulkWriter was closed")) {
            try await db.recursiveDelete(db.collection("users"), bulkWriter: closed)
        }
        #expect(try await db.collection("users").listDocuments(showMissing: true).count == 3)
    }
}
