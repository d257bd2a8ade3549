import FirestorePostgres
import FirestoreREST
import FirestoreTestSupport
import Foundation

@testable import FirestoreFeed

/// A table the chaos tests mirror into with `firestore-feed mirror`, an SQLite file (`--sqlite`) or a PostgreSQL table
/// (`--postgres`), with an audit trigger that records every row the mirror writes: `AUDIT (seq, name, update_time)`,
/// one row per version written (insert or update) and one per removal (`update_time` empty), in the order the store
/// wrote them. Every read of the store runs on a thread of its own (SQLite and libpq block).
struct MirrorChaosStore: Sendable {
    enum Kind: String, Sendable, CaseIterable { case sqlite, postgres }

    let kind: Kind
    /// The SQLite file's path, or the PostgreSQL URL.
    let location: String
    let table: String
    private let worker = BlockingExecutor(name: "mirror-chaos-store")

    private init(kind: Kind, location: String, table: String) {
        self.kind = kind
        self.location = location
        self.table = table
    }

    /// A new, empty store of `kind`, its tables made by the mirror and the audit installed.
    static func make(_ kind: Kind, label: String) async throws -> Self {
        switch kind {
        case .sqlite:
            let path = NSTemporaryDirectory() + "\(label)-\(UUID().uuidString).sqlite"
            let store = Self(kind: kind, location: path, table: "items")
            _ = try await SQLiteMirror(path: path, table: store.table)
            try await store.worker.run { () throws(FirestoreError) in
                let connection = try SQLiteConnection(path: path, label: "chaos audit")
                try connection.execute(
                    """
                    CREATE TABLE audit (seq INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL,
                        update_time TEXT NOT NULL);
                    CREATE TRIGGER audit_insert AFTER INSERT ON "items" BEGIN
                        INSERT INTO audit (name, update_time) VALUES (new.name, new.update_time);
                    END;
                    CREATE TRIGGER audit_update AFTER UPDATE ON "items" BEGIN
                        INSERT INTO audit (name, update_time) VALUES (new.name, new.update_time);
                    END;
                    CREATE TRIGGER audit_delete AFTER DELETE ON "items" BEGIN
                        INSERT INTO audit (name, update_time) VALUES (old.name, '');
                    END;
                    """, doing: "adding the audit")
            }
            return store
        case .postgres:
            let url = try PostgresEnvironment.requireURL()
            let table = PostgresEnvironment.uniqueTable(label)
            let store = Self(kind: kind, location: url, table: table)
            _ = try await PostgresMirror(url: url, table: table)
            // A plpgsql trigger after every insert, update and delete; `bigserial` numbers the rows in the order they
            // were written (two transactions of one shard are serialized by its resume row's lock).
            try await store.worker.run { () throws(FirestoreError) in
                try PostgresConnection(url: url).execute(
                    """
                    CREATE TABLE \(table)_audit (seq bigserial PRIMARY KEY, name text COLLATE "C" NOT NULL,
                        update_time text COLLATE "C" NOT NULL);
                    CREATE FUNCTION \(table)_audit_row() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN
                        IF TG_OP = 'DELETE' THEN
                            INSERT INTO \(table)_audit (name, update_time) VALUES (OLD.name, '');
                            RETURN OLD;
                        END IF;
                        INSERT INTO \(table)_audit (name, update_time) VALUES (NEW.name, NEW.update_time);
                        RETURN NEW;
                    END $$;
                    CREATE TRIGGER \(table)_audit AFTER INSERT OR UPDATE OR DELETE ON \(table)
                        FOR EACH ROW EXECUTE FUNCTION \(table)_audit_row();
                    """, doing: "adding the audit")
            }
            return store
        }
    }

    /// The sink options of `firestore-feed mirror`.
    var sinkArguments: [String] {
        switch kind {
        case .sqlite: ["--sqlite", location, "--table", table]
        case .postgres: ["--postgres", location, "--table", table]
        }
    }

    /// The store as a sink, to read its documents and resume points.
    func open() async throws -> any FeedSink {
        switch kind {
        case .sqlite: try await SQLiteMirror(path: location, table: table)
        case .postgres: try await PostgresMirror(url: location, table: table)
        }
    }

    /// Each row of `sql`, its columns as text (`NULL` as empty).
    func rows(_ sql: String) async throws -> [[String]] {
        let (kind, location) = (kind, location)
        return try await worker.run { () throws(FirestoreError) -> [[String]] in
            switch kind {
            case .sqlite:
                try SQLiteConnection(path: location, label: "chaos audit").rows(sql, doing: "a chaos test's query")
            case .postgres:
                try PostgresConnection(url: location).query(sql, doing: "a chaos test's query").all.map { row in
                    row.map { $0 ?? "" }
                }
            }
        }
    }

    /// The audit trigger's table.
    var auditTable: String { kind == .sqlite ? "audit" : "\(table)_audit" }

    /// The audit's rows, in the order they were written.
    func audit() async throws -> [(name: String, updateTime: String)] {
        try await rows("SELECT name, update_time FROM \(auditTable) ORDER BY seq").compactMap { row in
            row.count == 2 ? (row[0], row[1]) : nil
        }
    }

    /// Each tombstone's name, with its last version and removal time.
    func tombstones() async throws -> [String: String] {
        let rows = try await rows("SELECT name, update_time, removed_at FROM \(table)_tombstones")
        return Dictionary(rows.map { ($0[0], $0.dropFirst().joined(separator: " removed at ")) }) { first, _ in first }
    }

    /// Removes the file, or drops the tables.
    func remove() async {
        switch kind {
        case .sqlite:
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: location + suffix) }
        case .postgres:
            let (url, table) = (location, table)
            _ = try? await worker.run { () throws(FirestoreError) in
                try PostgresConnection(url: url).execute(
                    """
                    DROP TABLE IF EXISTS \(table), \(table)_tombstones, \(table)_resume, \(table)_audit;
                    DROP FUNCTION IF EXISTS \(table)_audit_row();
                    """, doing: "dropping a chaos test's tables")
            }
        }
    }
}

/// What an audit says: the versions written, the removals, the versions written again while the row held them
/// (`twice`), and those written after a newer version of their document (`regressions`). A document that left and
/// came back unchanged is written again after its removal, and counts as neither; how many did is counted
/// (`cameBackUnchanged`, printed): in a collection's mirror a document leaves only when deleted, and comes back with a
/// new `updateTime`, so each is a removal of a document that never left (a snapshot that lacked it).
struct MirrorAuditFigures: Sendable, CustomStringConvertible {
    var versions = 0
    var removals = 0
    var twice: [String] = []
    var regressions: [String] = []
    var cameBackUnchanged = 0

    init(_ audit: [(name: String, updateTime: String)]) {
        var latest: [String: String] = [:]
        var held: Set<String> = []
        for (name, updateTime) in audit {
            if updateTime.isEmpty {
                removals += 1
                held.remove(name)
                continue
            }
            versions += 1
            if let last = latest[name] {
                if updateTime < last { regressions.append("\(name) \(updateTime) after \(last)") }
                if updateTime == last, held.contains(name) { twice.append("\(name) \(updateTime)") }
                if updateTime == last, !held.contains(name) { cameBackUnchanged += 1 }
            }
            latest[name] = updateTime
            held.insert(name)
        }
    }

    var description: String {
        "\(versions) versions applied, \(removals) removals, \(twice.count) twice, \(regressions.count) older after newer, "
            + "\(cameBackUnchanged) came back unchanged after a removal"
    }
}
