import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

@testable import FirestoreREST

/// A session of gRPC calls (unary and server-streaming) recorded from the real emulator replays offline to the same
/// results, over `.grpc` and over `.automatic` (which replays a cassette of gRPC calls over gRPC).
@Suite(.timeLimit(.minutes(2))) struct RPCRecordReplayLiveTests {
    /// Commits, a streamed query, a batch get, a count, a transaction, a list and a server error; every result as
    /// one JSON value, times included.
    static func session(_ db: Firestore) async throws -> [JSONValue] {
        var results: [JSONValue] = []
        let fruits = db.collection("fruits")
        let apple = try await fruits.document("apple").setData(["name": "Apple", "kcal": 52])
        try await fruits.document("kiwi").setData(["name": "Kiwi", "kcal": 61])
        results.append(["written": .string(apple.writeTime.rfc3339)])
        let query = try await fruits.whereField("kcal", isGreaterThan: 50).order(by: "kcal").getDocuments()
        results.append([
            "ids": .array(query.documents.map { .string($0.documentID) }),
            "readTime": .string(query.readTime?.rfc3339 ?? "?"),
        ])
        let both = try await db.getAll([fruits.document("apple"), fruits.document("plum")])
        results.append(.array(both.map { .string("\($0.documentID) \($0.exists) \($0.updateTime?.rfc3339 ?? "-")") }))
        results.append(["count": .integer(try await fruits.count.getAggregation().count ?? -1)])
        let seen = try await db.runTransaction { transaction in
            let snapshot = try await transaction.getDocument(fruits.document("kiwi"))
            try transaction.updateData(["kcal": .increment(Int64(1))], forDocument: fruits.document("kiwi"))
            return snapshot.data()?["kcal"] ?? .null
        }
        results.append(["seen": seen.plainJSON])
        results.append(.array(try await fruits.listDocuments().map { .string($0.documentID) }))
        do {
            try await fruits.document("plum").updateData(["kcal": 46])
            results.append("no error")
        } catch let error as FirestoreError {
            results.append(["error": .string(error.code.name), "server": .bool(error.isServerStatus)])
        }
        return results
    }

    @Test func aSessionRecordedOverGRPCReplaysOffline() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("rpc-record")
        let path = NSTemporaryDirectory() + "\(project).json"
        defer { try? FileManager.default.removeItem(atPath: path) }

        let recorder = RecordingTransport(wrapping: CurlTransport(), savingTo: path)
        let db = try Firestore.emulator(host: host, projectID: project, transport: recorder).using(protocol: .grpc)
        let live = try await Self.session(db)
        try #require(live.count == 7, "\(live)")
        #expect(live[1]["ids"] == ["apple", "kiwi"])
        #expect(live[3] == ["count": 2])
        #expect(live[4] == ["seen": 61])
        #expect(live[6] == ["error": "not-found", "server": true])

        let cassette = try Cassette(contentsOfFile: path)
        let methods = cassette.interactions.map(\.request.path)
        #expect(methods.allSatisfy { $0.hasPrefix("/google.firestore.v1.Firestore/") })
        #expect(
            Set(methods) == [
                "/google.firestore.v1.Firestore/Commit", "/google.firestore.v1.Firestore/RunQuery",
                "/google.firestore.v1.Firestore/BatchGetDocuments",
                "/google.firestore.v1.Firestore/RunAggregationQuery",
                "/google.firestore.v1.Firestore/ListDocuments",
            ])
        #expect(
            cassette.interactions.allSatisfy {
                $0.request.header("authorization") == "Bearer <REDACTED>" || $0.request.header("authorization") == nil
            })

        for wire in [FirestoreProtocol.grpc, .automatic] {
            let replay = ReplayTransport(cassette: cassette, options: .init(ordering: .session))
            let offline = Firestore(
                database: try DatabaseID(projectID: project), baseURL: "http://replay.invalid/v1/",
                credentials: EmulatorOwnerCredentials(), transport: replay, isEmulator: true
            ).using(protocol: wire)
            #expect(try await Self.session(offline) == live, "replayed over \(wire)")
            #expect(replay.unplayedIndices.isEmpty)
        }
    }
}
