import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreWire

/// The bounded connection pool against the real emulator: many concurrent queries, few connections.
@Suite(.timeLimit(.minutes(2))) struct ConnectionPoolLiveTests {
    @Test func hundredConcurrentRunQueriesUseAtMostThePoolsConnections() async throws {
        let transport = CurlTransport(configuration: .init(maxConnections: 4))
        let db = try Firestore.emulator(
            host: EmulatorEnvironment.requireHost(), projectID: EmulatorEnvironment.uniqueProjectID("pool"),
            transport: transport
        ).using(protocol: .rest)  // the REST pool is what is counted
        let batch = db.batch()
        for (id, kcal) in [("apple", 52), ("banana", 89), ("cherry", 50)] {
            try batch.setData(
                ["name": .string(id), "kcal": .integer(Int64(kcal))], forDocument: db.document("fruits/\(id)"))
        }
        try await batch.commit()
        // The batch commit is the first request of this transport: exactly one connection.
        #expect(transport.openedConnectionCount == 1)

        let query = db.collection("fruits").whereField("kcal", isGreaterThan: 50).order(by: "kcal")
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<100 {
                group.addTask { try await query.getDocuments().documents.map(\.documentID) }
            }
            return try await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        #expect(results.count == 100)
        #expect(results.allSatisfy { $0 == ["apple", "banana"] })
        #expect(transport.createdHandleCount <= 4)
        // At most the pool's 4 connections in all, the commit's among them: 1 ... 4.
        #expect((1...4).contains(transport.openedConnectionCount))
    }
}
