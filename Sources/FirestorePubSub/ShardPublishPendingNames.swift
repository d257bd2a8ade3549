import FirestoreFeed
import FirestoreREST

/// The names a feed group's publish may have published for a shard past the shard's stored checkpoint, kept in
/// Firestore beside the shard's lease, where its next owner reads them: `{root}/{group}/shards/{n}/publishPending/
/// {generation}-{chunk}`, each a field `names` (the names, one a line, at most ``chunkBytes`` each; one string, so
/// Firestore indexes none of them).
///
/// Why: a group checkpoints a shard at its lease renewals, so a member killed (or paused past its fence) after
/// publishing snapshots has published documents its shard's next feed, resumed from the older stored checkpoint,
/// never saw; one deleted meanwhile is in neither that checkpoint nor the new result, and its removal would never be
/// published. So before each publish this member writes the names of every document a snapshot since the stored
/// checkpoint added or changed (and, from its first snapshot on, those it read on starting); the first snapshot of
/// a shard's feed (a takeover, or a restart after a fallen fence) reads every record of the shard and publishes a
/// removal, at its read time, for each name the result lacks. A name whose document is gone is a tombstone under
/// the consumer's rule; one published again is a duplicate.
///
/// Records of other generations are deleted by the first write after they were read; a member paused past its
/// fence that writes its own afterwards leaves names the next takeover reads again (more removals of absent
/// documents, never fewer). Cost: one commit (one billed write per record) before each publish of a snapshot that
/// added or changed documents, and at each feed start one query of the shard's records (one billed read per record,
/// at least one).
actor ShardPublishPendingNames {
    /// The most a record's `names` holds, in bytes (a document holds at most 1 MiB).
    static let chunkBytes = 800_000
    /// The most records one commit writes (a commit request holds at most 10 MiB).
    static let chunksPerCommit = 10

    private struct Shard {
        var generation: Int64
        /// The names of each snapshot published since the stored checkpoint (and on starting), by read time.
        var published: [(readTime: Timestamp, names: Set<String>)] = []
        /// The record IDs this member knows are stored (its own, and those read on starting and not deleted yet).
        var stored: Set<String> = []
    }

    private var shards: [Int: Shard] = [:]

    /// The removals the shard's first snapshot needs for what earlier feeds of it may have published, and the
    /// shard's record written with what `snapshot` is about to publish. Call right before publishing its messages.
    /// - Returns: removal messages (``PubSubChangeMessage/removal(name:readTime:)``) at the snapshot's read time, for
    ///   every name a record holds that the result lacks, with the snapshot's `shard` and `generation`; none after
    ///   the first snapshot.
    /// - Throws: the read's or the commit's `FirestoreError` (nothing is published then: the snapshot is not
    ///   acknowledged); `.dataLoss` for a record of another shape.
    func beforePublishing(_ snapshot: ShardSnapshot) async throws -> [PubSubMessage] {
        guard let lease = snapshot.leaseDocument, let readTime = snapshot.readTime else { return [] }
        var removals: [PubSubMessage] = []
        var names = Set(
            snapshot.snapshot.documentChanges.filter { $0.type != .removed }.compactMap { $0.document.document?.name })
        var shard = shards[snapshot.shard] ?? Shard(generation: snapshot.generation)
        if snapshot.startsFeed || shard.generation != snapshot.generation {
            let (earlier, records) = try await Self.read(lease)
            removals = PublishPendingNames.removals(of: earlier, absentFrom: snapshot.snapshot).map { removal in
                var removal = removal
                removal.attributes["shard"] = String(snapshot.shard)
                removal.attributes["generation"] = String(snapshot.generation)
                return removal
            }
            names.formUnion(earlier)
            shard = Shard(generation: snapshot.generation, published: [], stored: records)
        }
        if let stored = await snapshot.storedCheckpoint() {
            shard.published.removeAll { $0.readTime <= stored }
        }
        if !names.isEmpty { shard.published.append((readTime, names)) }
        let pending = shard.published.reduce(into: Set<String>()) { $0.formUnion($1.names) }
        shard.stored = try await Self.write(
            pending, generation: snapshot.generation, beside: lease, replacing: shard.stored)
        shards[snapshot.shard] = shard
        return removals
    }

    /// Every name in the shard's records, and the records' IDs.
    static func read(_ lease: DocumentReference) async throws -> (names: Set<String>, records: Set<String>) {
        var names = Set<String>()
        var records = Set<String>()
        for record in try await lease.collection("publishPending").getDocuments().documents {
            guard case .string(let text)? = record.get("names") else {
                throw FirestoreError(
                    code: .dataLoss,
                    message: "\(record.reference.path): a publish-pending record without a string field 'names'")
            }
            names.formUnion(text.split(separator: "\n").map(String.init))
            records.insert(record.reference.documentID)
        }
        return (names, records)
    }

    /// Writes `names` as the records `{generation}-0`, `-1`, … and deletes the other `stored` records, in commits of
    /// at most ``chunksPerCommit`` records (the deletes in the last); nothing when there is nothing to write or
    /// delete.
    /// - Returns: the record IDs stored now.
    static func write(
        _ names: Set<String>, generation: Int64, beside lease: DocumentReference, replacing stored: Set<String>
    ) async throws -> Set<String> {
        let chunks = Self.chunks(of: names.sorted())
        let ids = chunks.indices.map { "\(generation)-\($0)" }
        let stale = stored.subtracting(ids).sorted()
        guard !ids.isEmpty || !stale.isEmpty else { return [] }
        let records = lease.collection("publishPending")
        var start = 0
        repeat {
            let batch = lease.firestore.batch()
            let end = min(start + chunksPerCommit, ids.count)
            for index in start..<end {
                try batch.setData(["names": .string(chunks[index])], forDocument: records.document(ids[index]))
            }
            if end == ids.count {
                for id in stale { try batch.deleteDocument(records.document(id)) }
            }
            try await batch.commit()
            start = end
        } while start < ids.count
        return Set(ids)
    }

    /// `names` joined by newlines into strings of at most ``chunkBytes`` bytes (a longer name alone in one).
    static func chunks(of names: [String]) -> [String] {
        var chunks: [String] = []
        var current = ""
        for name in names {
            if !current.isEmpty, current.utf8.count + 1 + name.utf8.count > chunkBytes {
                chunks.append(current)
                current = ""
            }
            current += current.isEmpty ? name : "\n" + name
        }
        if !current.isEmpty { chunks.append(current) }
        return chunks
    }
}
