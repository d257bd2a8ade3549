import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST

/// ``Firestore/recursiveDelete(_:bulkWriter:)-(CollectionReference,_)`` on an in-memory tree: the list calls it makes
/// (every page, missing documents descended into), the deletes it sends, and how failed deletes are reported.
@Suite(.timeLimit(.minutes(2))) struct RecursiveDeleteTests {
    /// A database of documents by path (below the root) that answers documents.list (`showMissing`, pages of
    /// `pageSize`, the page token being the last ID of the page: a cursor, as Firestore's and the emulator's tokens hold the
    /// last name, so deleting listed documents does not shift the next page), listCollectionIds and batchWrite (deleting;
    /// a write to a path in `refused` fails with PERMISSION_DENIED).
    final class TreeServer: HTTPTransport {
        static let root = "http://test.invalid/v1/projects/p/databases/(default)/documents"
        private let documents: Mutex<Set<String>>
        private let log = Mutex<[String]>([])
        private let deletes = Mutex<[String]>([])
        private let refused: Set<String>

        init(_ documents: [String], refused: Set<String> = []) {
            self.documents = Mutex(Set(documents))
            self.refused = refused
        }

        var remaining: [String] { documents.withLock { $0.sorted() } }
        var calls: [String] { log.withLock { $0 } }
        /// Every path a delete was sent for, in order.
        var deleted: [String] { deletes.withLock { $0 } }

        /// The documents directly in `collection`, existing or missing (an ancestor of an existing one), sorted.
        private func children(of collection: String) -> [(id: String, exists: Bool)] {
            let all = documents.withLock { $0 }
            var ids: [String: Bool] = [:]
            for path in all where path.hasPrefix(collection + "/") {
                let rest = path.dropFirst(collection.count + 1).split(separator: "/")
                guard let first = rest.first else { continue }
                ids[String(first), default: false] = ids[String(first), default: false] || rest.count == 1
            }
            return ids.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }

        func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
            let resource = String(request.url.dropFirst(Self.root.count + 1))
            let (path, query) = resource.split(separator: "?", maxSplits: 1).map(String.init).splitPair
            let name = "projects/p/databases/(default)/documents/"
            if request.method == "GET" {
                let parameters = Dictionary(
                    query.split(separator: "&").map {
                        $0.split(separator: "=", maxSplits: 1).map(String.init).splitPair
                    },
                    uniquingKeysWith: { first, _ in first })
                let after = parameters["pageToken"]
                let size = Int(parameters["pageSize"] ?? "300") ?? 300
                log.withLock { $0.append("list \(path) after \(after ?? "-")") }
                let all = children(of: path).filter { child in after.map { child.id > $0 } ?? true }
                let page = all.prefix(size)
                var body: [String: JSONValue] = [
                    "documents": .array(
                        page.map { child in
                            var document: [String: JSONValue] = ["name": .string(name + path + "/" + child.id)]
                            if child.exists {
                                document["createTime"] = "2026-01-01T00:00:00Z"
                                document["updateTime"] = "2026-01-01T00:00:00Z"
                            }
                            return .object(document)
                        })
                ]
                if page.count < all.count, let last = page.last { body["nextPageToken"] = .string(last.id) }
                return .ok(.object(body))
            }
            if path.hasSuffix(":listCollectionIds") {
                let parent = String(path.dropLast(":listCollectionIds".count))
                log.withLock { $0.append("collections \(parent)") }
                let all = documents.withLock { $0 }
                let ids = Set(
                    all.compactMap { document -> String? in
                        guard document.hasPrefix(parent + "/") else { return nil }
                        return document.dropFirst(parent.count + 1).split(separator: "/").first.map(String.init)
                    })
                return .ok(["collectionIds": .array(ids.sorted().map { .string($0) })])
            }
            let body = (try? JSONValue.parse(request.body ?? Data())) ?? .null
            let deletes = (body["writes"]?.arrayValue ?? []).compactMap { $0["delete"]?.stringValue }
                .map { String($0.dropFirst(name.count)) }
            self.deletes.withLock { $0.append(contentsOf: deletes) }
            var statuses: [JSONValue] = []
            for path in deletes {
                if refused.contains(path) {
                    statuses.append(["code": 7, "message": "denied"])
                } else {
                    _ = documents.withLock { $0.remove(path) }
                    statuses.append(.object([:]))
                }
            }
            return .ok(
                [
                    "writeResults": .array(deletes.map { _ in .object([:]) }),
                    "status": .array(statuses),
                ])
        }

        func firestore() throws -> Firestore {
            Firestore(
                database: try DatabaseID(projectID: "p"), baseURL: "http://test.invalid/v1/",
                credentials: NoCredentials(), transport: self, isEmulator: false)
        }
    }

    /// Every page of the collection is listed; a missing document (`c/ghost`) is descended into but not deleted;
    /// the starting collection's documents and everything below them go, nothing beside them.
    @Test func walksEveryPageAndDescendsIntoMissingDocuments() async throws {
        let many = (0..<301).map { String(format: "c/d%03d", $0) }
        let server = TreeServer(many + ["c/ghost/s/x", "c/ghost/s/x/t/y", "keep/k"])
        let db = try server.firestore()
        let writer = try db.bulkWriter(options: .init(throttling: .disabled))
        #expect(try await db.recursiveDelete(db.collection("c"), bulkWriter: writer) == 303)
        #expect(server.remaining == ["keep/k"])
        let lists = server.calls.filter { $0.hasPrefix("list") }
        #expect(
            lists == ["list c after -", "list c after d299", "list c/ghost/s after -", "list c/ghost/s/x/t after -"])
        #expect(server.calls.filter { $0.hasPrefix("collections") }.count == 304)
        #expect(server.deleted.count == 303)
        #expect(!server.deleted.contains("c/ghost"))
        // Below-first within a document: its subcollection's documents are enqueued before it (and so sent in the
        // same batch before it, or in an earlier batch; batches run concurrently, so only this pair's order holds).
        let child = try #require(server.deleted.firstIndex(of: "c/ghost/s/x/t/y"))
        let parent = try #require(server.deleted.firstIndex(of: "c/ghost/s/x"))
        #expect(child < parent)
    }

    /// Deletes that fail after their retries do not stop the others; the error has the last failure's code and says
    /// how many failed.
    @Test func failedDeletesAreCountedAndReported() async throws {
        let server = TreeServer(["c/a", "c/b", "c/b/s/x"], refused: ["c/b"])
        let db = try server.firestore()
        await #expect(
            throws: FirestoreError(
                code: .permissionDenied,
                message:
                    "recursiveDelete of c: 1 of 3 deletes failed; the last: delete of c/b failed (attempt 1): permission-denied: denied"
            )
        ) { try await db.recursiveDelete(db.collection("c")) }
        #expect(server.remaining == ["c/b"])
    }

    /// A document: its subcollections, then itself (counted whether or not it exists).
    @Test func aDocumentAndItsSubcollections() async throws {
        let server = TreeServer(["c/a", "c/a/s/x", "c/a/s/x/t/y", "c/b"])
        let db = try server.firestore()
        #expect(try await db.recursiveDelete(db.document("c/a")) == 3)
        #expect(server.remaining == ["c/b"])
        #expect(server.calls.first == "collections c/a")
    }
}

extension Array where Element == String {
    /// The first two elements, the second empty when missing.
    fileprivate var splitPair: (String, String) { (first ?? "", count > 1 ? self[1] : "") }
}
