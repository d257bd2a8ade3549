import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The `load_cursor` column of `T_resume` (issue 36): written and read with each batch's resume point, and added to a
/// file written before it, whose rows are kept.
@Suite(.timeLimit(.minutes(1))) struct SQLiteMirrorLoadCursorTests {
    typealias F = MirrorFixture

    @Test func aBatchsLoadCursorIsStoredWithItsResumePointAndClearedByTheNext() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        try await mirror.apply(
            FeedSinkBatch(
                changes: [F.put("a", updated: 1)], readTime: F.time(2), resumeToken: nil, loadCursor: F.prefix + "a"))
        #expect(
            try await mirror.resumePoint(shard: 0)
                == FeedSinkResumePoint(resumeToken: nil, readTime: F.time(2), generation: 0, loadCursor: F.prefix + "a")
        )
        try await mirror.apply(FeedSinkBatch(changes: [], readTime: F.time(2), resumeToken: nil))
        #expect(try await mirror.resumePoint(shard: 0)?.loadCursor == nil)
        #expect(F.lines(path, "SELECT coalesce(load_cursor, 'NULL') FROM documents_resume") == ["NULL"])
    }

    /// A file whose `documents_resume` has the shape from before `load_cursor`: opening it adds the column, keeps the
    /// row (read with no cursor), and a second open finds the shape it expects.
    @Test func aFileFromBeforeTheLoadCursorGetsTheColumnAndKeepsItsRows() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        CheckpointFiles.sql(
            path,
            """
            CREATE TABLE "documents_resume" (
                shard INTEGER PRIMARY KEY NOT NULL,
                resume_token BLOB,
                read_time TEXT,
                generation INTEGER NOT NULL,
                query TEXT
            ) STRICT
            """)
        CheckpointFiles.sql(
            path,
            "INSERT INTO documents_resume VALUES (0, x'0102', '2026-01-01T00:00:02.000000000Z', 3, NULL)")
        let mirror = try await SQLiteMirror(path: path)
        #expect(
            try await mirror.resumePoint(shard: 0)
                == FeedSinkResumePoint(resumeToken: [1, 2], readTime: F.time(2), generation: 3))
        try await mirror.apply(
            FeedSinkBatch(
                changes: [F.put("a", updated: 1)], readTime: F.time(4), resumeToken: nil, generation: 3,
                loadCursor: F.prefix + "a"))
        let again = try await SQLiteMirror(path: path)
        #expect(try await again.resumePoint(shard: 0)?.loadCursor == F.prefix + "a")
        #expect(
            F.lines(path, "SELECT group_concat(name, ',') FROM pragma_table_info('documents_resume')") == [
                "shard,resume_token,read_time,generation,query,load_cursor"
            ])
    }
}
