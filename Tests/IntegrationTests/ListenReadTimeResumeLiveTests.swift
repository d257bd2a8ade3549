import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// What the emulator sends for a Listen query target added with `read_time` (the `resume_type` a mirror's backfill
/// resumes from, issue 36), on a raw Listen call: the responses up to the first global snapshot point after
/// `CURRENT`, by kind.
@Suite(.timeLimit(.minutes(2))) struct ListenReadTimeResumeLiveTests {
    /// The responses of one target, up to its first consistent snapshot.
    struct Observed: Equatable, CustomStringConvertible {
        var changed: [String] = []
        var deleted: [String] = []
        var removed: [String] = []
        var resets = 0
        /// Every response in order: `ADD`, `RESET`, `CURRENT`, `doc a`, `delete b`, ... (`NO_CHANGE` points left out).
        var sequence: [String] = []
        var description: String {
            "changed \(changed), deleted \(deleted), removed \(removed), resets \(resets); \(sequence)"
        }
    }

    /// Adds a query target of `collection` on a Listen call of its own, resuming from `resumePoint`, and collects
    /// what arrives until the first global `NO_CHANGE` with a read time after the target is `CURRENT`.
    static func observe(
        _ db: Firestore, collection: String, resumePoint: ListenTarget.ResumePoint?
    ) async throws -> Observed {
        guard let transport = db.transport as? any ListenTransport else {
            throw FirestoreError(code: .failedPrecondition, message: "no Listen transport")
        }
        let channel = try transport.makeListenChannel(for: db)
        let call = try channel.makeListenCall(metadata: try await db.grpcMetadata())
        defer { call.cancel() }
        let target = try ListenTarget(
            query: db.collection(collection).query, targetID: 1, resumePoint: resumePoint)
        try call.send(ListenRequest(adding: target, database: db.database.name))
        var observed = Observed()
        var current = false
        for try await response in call.responses {
            switch response {
            case .documentChange(let change):
                observed.changed.append(String(change.document.name.split(separator: "/").last ?? ""))
                observed.sequence.append("doc " + (observed.changed.last ?? ""))
            case .documentDelete(let delete):
                observed.deleted.append(String(delete.documentName.split(separator: "/").last ?? ""))
                observed.sequence.append("delete " + (observed.deleted.last ?? ""))
            case .documentRemove(let remove):
                observed.removed.append(String(remove.documentName.split(separator: "/").last ?? ""))
                observed.sequence.append("remove " + (observed.removed.last ?? ""))
            case .targetChange(let change):
                if change.kind != .noChange { observed.sequence.append("\(change.kind)".uppercased()) }
                switch change.kind {
                case .reset: observed.resets += 1
                case .current: current = true
                case .noChange where change.targetIDs.isEmpty && change.readTime != nil && current:
                    observed.changed.sort()
                    return observed
                default: break
                }
            case .filter, .unrecognized: break
            }
        }
        throw FirestoreError(code: .unavailable, message: "the Listen call ended before a snapshot")
    }

    /// What the emulator does with a target added with `read_time` T (the Listen tail of a mirror's backfill): it
    /// does not send only the changes after T. It answers with `RESET` (the client must drop its view), then the
    /// whole current result, as for a target without a resume point: the document modified after T, the one
    /// unchanged, the one added; nothing for the one deleted, which the client's view loses by the reset. So a
    /// mirror that sends T is correct on the emulator (its view, seeded with the documents at T, is reset and
    /// rebuilt, and the first snapshot's changes are computed against it) but is sent every document. Production
    /// Firestore documents `read_time` as a resume point ("the client must know the state of matching documents at
    /// this time"); this test pins what the emulator does, so a change in it shows here.
    @Test func theEmulatorAnswersATargetAddedWithAReadTimeWithAResetAndTheWholeResult() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let db = try Firestore.emulator(host: host, projectID: EmulatorEnvironment.uniqueProjectID("listen-readtime"))
        for id in ["a", "b", "c"] { try await db.document("items/\(id)").setData(["n": 1]) }
        let before = try await db.collection("items").getDocuments()
        let readTime = try #require(before.readTime)
        try await db.document("items/a").setData(["n": 2])
        try await db.document("items/b").delete()
        try await db.document("items/d").setData(["n": 1])

        let resumed = try await Self.observe(db, collection: "items", resumePoint: .readTime(readTime))
        print("Listen from read_time: \(resumed)")
        let scratch = try await Self.observe(db, collection: "items", resumePoint: nil)
        print("Listen from scratch: \(scratch)")
        #expect(scratch.changed == ["a", "c", "d"])
        #expect(scratch.resets == 0)
        #expect(resumed.changed == ["a", "c", "d"])
        #expect(resumed.deleted + resumed.removed == [])
        #expect(resumed.resets == 1)
        // The reset comes before any document, so the documents that follow rebuild the view.
        #expect(
            resumed.sequence.firstIndex(of: "RESET") ?? .max < resumed.sequence.firstIndex { $0.hasPrefix("doc") } ?? 0)
    }
}
