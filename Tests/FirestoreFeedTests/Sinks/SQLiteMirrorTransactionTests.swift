import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreFeed

/// The SQLite mirror's transactions: the fencing token refuses a stale generation (changing nothing, counted), the
/// resume point round-trips, a batch interrupted by an error leaves neither rows nor resume point changed, and the
/// table name and shape are checked.
@Suite(.timeLimit(.minutes(1))) struct SQLiteMirrorTransactionTests {
    typealias F = MirrorFixture

    @Test func aStaleGenerationIsRefusedAndChangesNothing() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11, token: "g5", shard: 2, generation: 5))
        let stale = F.batch([F.put("a", updated: 20), F.put("b", updated: 20)], read: 21, shard: 2, generation: 4)
        let error = await #expect(throws: FeedSinkStaleGeneration.self) { try await mirror.apply(stale) }
        #expect(
            error?.description
                == "SQLite mirror \(path) table documents: shard 2: refused a batch of generation 4, below the "
                + "generation 5 stored for the shard (a stale writer: its lease passed to another member)")
        #expect(F.rows(path) == ["a \(F.stored(10)) {}"])
        #expect(
            try await mirror.resumePoint(shard: 2)
                == FeedSinkResumePoint(resumeToken: Array("g5".utf8), readTime: F.time(11), generation: 5))
        // Another shard has a fence of its own; the same or a higher generation is accepted.
        try await mirror.apply(F.batch([F.put("b", updated: 20)], read: 21, shard: 1, generation: 1))
        try await mirror.apply(F.batch([F.put("c", updated: 22)], read: 23, shard: 2, generation: 5))
        try await mirror.apply(F.batch([F.put("d", updated: 24)], read: 25, shard: 2, generation: 6))
        #expect(F.rows(path).map { String($0.prefix(1)) } == ["a", "b", "c", "d"])
        #expect(F.counts(mirror) == [4, 4, 0, 1])
        #expect(try await mirror.resumePoint(shard: 2)?.generation == 6)
    }

    @Test func aWriteLockHeldPastTheBusyTimeoutFailsTheBatchAndChangesNothing() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path, busyTimeout: .milliseconds(20))
        let holder = try SQLiteConnection(path: path, label: "lock holder")
        try holder.execute("BEGIN IMMEDIATE", doing: "taking the write lock")
        let error = await #expect(throws: FirestoreError.self) {
            try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        }
        #expect(error?.code == .unavailable)
        try holder.execute("ROLLBACK", doing: "releasing the write lock")
        #expect(F.rows(path) == [])
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11))
        #expect(F.rows(path) == ["a \(F.stored(10)) {}"])
        #expect(SQLiteMirror.defaultBusyTimeout == .seconds(10))
    }

    @Test func theResumePointRoundTrips() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        do {
            let mirror = try await SQLiteMirror(path: path, table: "orders")
            #expect(try await mirror.resumePoint(shard: 0) == nil)
            let token: [UInt8] = [0, 1, 0xfe, 0xff]
            try await mirror.apply(
                FeedSinkBatch(
                    changes: [], readTime: F.time(7, 123_456_789), resumeToken: token, shard: 0, generation: 3,
                    query: "projects/p/databases/(default)/documents {\"from\":[{\"collectionId\":\"orders\"}]}"))
        }
        let reopened = try await SQLiteMirror(path: path, table: "orders")
        #expect(
            try await reopened.resumePoint(shard: 0)
                == FeedSinkResumePoint(
                    resumeToken: [0, 1, 0xfe, 0xff], readTime: F.time(7, 123_456_789), generation: 3,
                    query: "projects/p/databases/(default)/documents {\"from\":[{\"collectionId\":\"orders\"}]}"))
        #expect(try await reopened.resumePoint(shard: 1) == nil)
        #expect(
            F.lines(path, "SELECT read_time FROM orders_resume")
                == ["\(F.time(7).rfc3339.dropLast()).123456789Z"])
    }

    /// A batch whose second change cannot be applied (a document without an `updateTime`) is rolled back whole: the
    /// first change's row and the new resume point are not in the file.
    @Test func aBatchInterruptedByAnErrorChangesNothing() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(F.batch([F.put("a", updated: 10)], read: 11, token: "before"))
        let broken = F.batch(
            [F.put("a", updated: 20, ["v": 2]), F.put("b", updated: 20), .put(Document(name: F.prefix + "c"))],
            read: 21, token: "after")
        let error = await #expect(throws: FirestoreError.self) { try await mirror.apply(broken) }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message
                == "SQLite mirror \(path) table documents: document \(F.prefix)c has no updateTime, so no version to "
                + "guard; nothing of its batch applied")
        #expect(F.rows(path) == ["a \(F.stored(10)) {}"])
        #expect(
            try await mirror.resumePoint(shard: 0)
                == FeedSinkResumePoint(resumeToken: Array("before".utf8), readTime: F.time(11), generation: 0))
        #expect(F.counts(mirror) == [1, 1, 0, 0])
    }

    @Test(arguments: ["", "1abc", "a-b", "a b", "sqlite_x", "x\"; DROP TABLE y; --", String(repeating: "a", count: 49)])
    func aTableNameThatIsNotAPlainIdentifierIsRefused(table: String) async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let error = await #expect(throws: FirestoreError.self) { _ = try await SQLiteMirror(path: path, table: table) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.hasPrefix("SQLite mirror table \"\(table)\": not a plain identifier") == true)
    }

    @Test func aTableOfTheSameNameWithAnotherShapeIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        _ = CheckpointFiles.sql(path, "CREATE TABLE orders (id INTEGER PRIMARY KEY)")
        let error = await #expect(throws: FirestoreError.self) {
            _ = try await SQLiteMirror(path: path, table: "orders")
        }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "SQLite mirror \(path): table orders exists with another shape (CREATE TABLE orders (id INTEGER "
                + "PRIMARY KEY)); refusing to write to it (choose another table name)")
        // Another name in the same file is the user's to choose; the other table is left alone.
        let mirror = try await SQLiteMirror(path: path, table: "orders_mirror")
        try await mirror.apply(F.batch([F.put("a", updated: 1)], read: 2))
        #expect(F.rows(path, table: "orders_mirror") == ["a \(F.stored(1)) {}"])
        #expect(CheckpointFiles.sql(path, "SELECT count(*) FROM orders") == "0")
    }

    @Test func aFileThatIsNotAnSQLiteDatabaseIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let error = await #expect(throws: FirestoreError.self) { _ = try await SQLiteMirror(path: path) }
        #expect(error?.code == .dataLoss)
        #expect(error?.message.hasPrefix("SQLite mirror \(path): not an SQLite database (") == true)
    }
}
