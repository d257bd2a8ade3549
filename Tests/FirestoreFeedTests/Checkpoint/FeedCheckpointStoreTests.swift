import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The checkpoint store's file (`FeedCheckpointStore`): its schema, what it refuses (a newer schema, another
/// application's database, a file that is empty, not SQLite, truncated or corrupted: each a clear error naming the
/// file, never a misread), one feed per key, and writes of O(changed documents) rows. Feeds poll the in-memory
/// versioned server (`VersionedFirestore`); no network.
@Suite(.timeLimit(.minutes(3))) struct FeedCheckpointStoreTests {
    static func time(_ milliseconds: Int64) -> Timestamp { DeltaDifferentialTests.time(milliseconds) }

    /// A server with `count` documents `d0000`... committed before time 0.
    static func seeded(_ count: Int) -> VersionedFirestore {
        let server = VersionedFirestore(now: time(0))
        for index in 0..<count {
            server.write(
                String(format: "d%04d", index), ["rank": .integer(Int64(index)), "note": .string("note \(index)")],
                requestTime: time(-5000), commitTime: time(-4950))
        }
        return server
    }

    /// Runs a keys-mode feed with a checkpoint on `server` until its first snapshot, acknowledges it and leaves.
    static func checkpointFirstSnapshot(_ server: VersionedFirestore, store: FeedCheckpointStore, key: String)
        async throws -> QuerySnapshot?
    {
        let query = try server.firestore().collection("items").query
        let clock = ManualClock()
        let pool = PollerPool(clock: clock)
        let consumer = GatedConsumer { onEvent in
            pool.snapshots(of: query, mode: .keys, checkpoint: store, key: key, onEvent: onEvent)
        }
        guard await consumer.waitFor(1, clock: clock) else { return nil }
        try await store.acknowledge(key: key)
        consumer.leave()
        _ = await store.waitUntilReleased(key)
        return consumer.last
    }

    /// The error `body` throws, as a `FirestoreError`.
    static func error(_ body: () async throws -> Void) async -> FirestoreError? {
        do {
            try await body()
            return nil
        } catch {
            return error as? FirestoreError
        }
    }

    @Test func aNewStoreHoldsTheSchemaVersionInWALMode() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let store = try await FeedCheckpointStore(path: path)
        #expect(try await store.keys() == [])
        #expect(FeedCheckpointStore.schemaVersion == 1)
        #expect(CheckpointFiles.sql(path, "PRAGMA user_version") == "1")
        #expect(CheckpointFiles.sql(path, "PRAGMA application_id") == "\(0x4646_4350)")
        #expect(CheckpointFiles.sql(path, "PRAGMA journal_mode") == "wal")
        #expect(
            CheckpointFiles.sql(path, "SELECT group_concat(name, ',') FROM sqlite_schema WHERE type = 'table'")
                == "feeds,documents")
        // Opening it again reads the same store.
        let again = try await FeedCheckpointStore(path: path)
        #expect(try await again.keys() == [])
    }

    @Test func aStoreWrittenByANewerVersionIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        _ = try await FeedCheckpointStore(path: path)
        CheckpointFiles.sql(path, "PRAGMA user_version = 2")
        let error = await Self.error { _ = try await FeedCheckpointStore(path: path) }
        #expect(error?.code == .failedPrecondition)
        #expect(
            error?.message
                == "checkpoint store \(path): written by a newer version of FirestoreFeed (schema version 2; this "
                + "library reads version 1); refusing to read it")
    }

    @Test func anotherApplicationsDatabaseIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        CheckpointFiles.sql(path, "CREATE TABLE feeds (key TEXT)")
        let error = await Self.error { _ = try await FeedCheckpointStore(path: path) }
        #expect(error?.code == .dataLoss)
        #expect(
            error?.message
                == "checkpoint store \(path): an SQLite database of another application (application_id 0), not a "
                + "FirestoreFeed checkpoint store; refusing to use it")
    }

    @Test func aFileThatIsNotSQLiteIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        try Data("{\"not\": \"a database\"}\n".utf8).write(to: URL(fileURLWithPath: path))
        let error = await Self.error { _ = try await FeedCheckpointStore(path: path) }
        #expect(error?.code == .dataLoss)
        #expect(
            error?.message
                == "checkpoint store \(path): not an SQLite database (reading the application ID: file is not a "
                + "database); refusing to use it")
        // Left as it was.
        #expect(try String(contentsOfFile: path, encoding: .utf8) == "{\"not\": \"a database\"}\n")
    }

    /// A store in a folder that does not exist says so (a new user got SQLite's "unable to open database file" as
    /// `permission-denied`).
    @Test func aStoreInAMissingFolderNamesTheFolder() async throws {
        let folder = NSTemporaryDirectory() + "no-such-folder-\(UUID().uuidString)"
        let error = await Self.error { _ = try await FeedCheckpointStore(path: folder + "/x.sqlite") }
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message == "checkpoint store \(folder)/x.sqlite: no folder \(folder) (create it first)")
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    @Test func anEmptyFileIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let error = await Self.error { _ = try await FeedCheckpointStore(path: path) }
        #expect(error?.code == .dataLoss)
        #expect(
            error?.message
                == "checkpoint store \(path): the file is empty (truncated?), not a checkpoint store; refusing to "
                + "use it (delete it to start from nothing)")
    }

    @Test func aTruncatedStoreIsRefused() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded(400)
        do {
            let store = try await FeedCheckpointStore(path: path)
            let first = try await Self.checkpointFirstSnapshot(server, store: store, key: "items")
            #expect(first?.count == 400)
        }
        CheckpointFiles.sql(path, "SELECT 1")  // folds the WAL into the file
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        #expect(size > 40_000)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size / 2))
        try handle.close()
        let error = await Self.error { _ = try await FeedCheckpointStore(path: path) }
        #expect(error?.code == .dataLoss)
        #expect(
            error?.message.hasPrefix("checkpoint store \(path): the file is damaged (truncated or corrupted): ")
                == true, "\(String(describing: error))")
    }

    @Test func aCorruptedDocumentRowIsRefusedNotMisread() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded(3)
        do {
            let store = try await FeedCheckpointStore(path: path)
            _ = try await Self.checkpointFirstSnapshot(server, store: store, key: "items")
        }
        CheckpointFiles.sql(path, "SELECT 1")
        // One digit of a stored value changes on disk, the page stays well-formed: SQLite cannot tell.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let marker = Array("note 1\"".utf8)
        let start = try #require(
            (0...(bytes.count - marker.count)).first { Array(bytes[$0..<($0 + marker.count)]) == marker })
        bytes[start + 5] = UInt8(ascii: "7")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let store = try await FeedCheckpointStore(path: path)
        let error = await Self.error { _ = try await store.checkpoint(key: "items") }
        #expect(error?.code == .dataLoss)
        #expect(
            error?.message
                == "checkpoint store \(path): key \"items\": the row of document "
                + "\(VersionedFirestore.root)/items/d0001 fails its checksum; the file is damaged, refusing to resume")
        // A feed on the key ends with the same error instead of resuming from a wrong document.
        let query = try server.firestore().collection("items").query
        let consumer = GatedConsumer { onEvent in
            PollerPool(clock: ManualClock()).snapshots(
                of: query, mode: .keys, checkpoint: store, key: "items", onEvent: onEvent)
        }
        #expect(await consumer.waitForEnd())
        #expect(consumer.count == 0)
        #expect(consumer.failure.withLock { $0 } == error)
    }

    @Test func aSecondFeedOnTheSameKeyIsRefusedUntilTheFirstEnds() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded(2)
        let query = try server.firestore().collection("items").query
        let store = try await FeedCheckpointStore(path: path)
        let clock = ManualClock()
        let pool = PollerPool(clock: clock)
        let first = GatedConsumer { pool.snapshots(of: query, mode: .keys, checkpoint: store, key: "k", onEvent: $0) }
        #expect(await first.waitFor(1, clock: clock))
        // The same store, and another store object on the same file (as another process would have).
        let other = try await FeedCheckpointStore(path: path)
        for candidate in [store, other] {
            let second = GatedConsumer {
                pool.snapshots(of: query, mode: .keys, checkpoint: candidate, key: "k", onEvent: $0)
            }
            #expect(await second.waitForEnd())
            let error = second.failure.withLock { $0 }
            #expect(error?.code == .failedPrecondition)
            #expect(
                error?.message
                    == "checkpoint store \(path): key \"k\" is in use by another feed (process \(getpid())); one "
                    + "feed at a time resumes from a key: stop that one or give this one another key")
        }
        // Another key of the same file is free.
        let third = GatedConsumer { pool.snapshots(of: query, mode: .keys, checkpoint: other, key: "k2", onEvent: $0) }
        #expect(await third.waitFor(1, clock: clock))
        first.leave()
        third.leave()
        #expect(await store.waitUntilReleased("k"))
        let fourth = GatedConsumer { pool.snapshots(of: query, mode: .keys, checkpoint: other, key: "k", onEvent: $0) }
        #expect(await fourth.waitFor(1, clock: clock))
        #expect(fourth.failure.withLock { $0 } == nil)
        fourth.leave()
    }

    /// Each snapshot is written in O(changed documents): 1,000 documents, one changed, two rows written (the
    /// document and the key's row) in five statements (BEGIN, the generation check, the document, the key, COMMIT).
    @Test func aSnapshotIsWrittenInRowsProportionalToItsChanges() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let server = Self.seeded(1_000)
        let query = try server.firestore().collection("items").query
        let store = try await FeedCheckpointStore(path: path)
        let clock = ManualClock()
        let pool = PollerPool(clock: clock)
        let consumer = GatedConsumer {
            pool.snapshots(of: query, mode: .keys, checkpoint: store, key: "items", onEvent: $0)
        }
        #expect(await consumer.waitFor(1, clock: clock))
        try await store.acknowledge(key: "items")
        #expect(store.lastCommitRowsWritten == 1_001)
        server.write(
            "d0500", ["rank": 500, "note": "changed"], requestTime: Self.time(100), commitTime: Self.time(110))
        server.now = Self.time(1000)
        consumer.allowNext()
        #expect(await consumer.waitFor(2, clock: clock))
        #expect(consumer.last?.changeList == ["modified d0500"])
        try await store.acknowledge(key: "items")
        #expect(store.lastCommitRowsWritten == 2)
        #expect(store.lastCommitStatements == 5)
        server.delete("d0007", commitTime: Self.time(1100))
        server.write("d2000", ["rank": 2000, "note": "new"], requestTime: Self.time(1100), commitTime: Self.time(1110))
        server.now = Self.time(2000)
        consumer.allowNext()
        #expect(await consumer.waitFor(3, clock: clock))
        #expect(consumer.last?.changeList == ["removed d0007", "added d2000"])
        try await store.acknowledge(key: "items")
        #expect(store.lastCommitRowsWritten == 3)
        #expect(store.lastCommitStatements == 6)
        // Acknowledging again writes nothing more.
        try await store.acknowledge(key: "items")
        #expect(store.lastCommitRowsWritten == 3)
        consumer.leave()
        let stored = try #require(try await store.checkpoint(key: "items"))
        #expect(stored.documents.count == 1_000)
        #expect(stored.generation == 3)
        #expect(stored.source == "keys")
        #expect(stored.readTime == consumer.last?.readTime)
        #expect(stored.documents.map(\.name) == server.documents(at: Self.time(2000)).map(\.name).sorted())
        #expect(stored.documents.first { $0.id == "d0500" }?.fields["note"] == "changed")
    }

    @Test func acknowledgingAKeyWithoutAFeedIsAnError() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let store = try await FeedCheckpointStore(path: path)
        let error = await Self.error { try await store.acknowledge(key: "nobody") }
        #expect(
            error
                == FirestoreError(
                    code: .failedPrecondition, message: "checkpoint store \(path): no feed runs on key \"nobody\""))
    }
}
