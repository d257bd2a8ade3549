/// What one batch did in a mirror's store (``SQLiteMirror``, and `PostgresMirror` in FirestorePostgres): the changes
/// that changed a row (`applied`) and those the version guard ignored (at or before what was held), or the generation
/// stored for the shard that refused it.
package enum MirrorBatchOutcome: Sendable {
    case committed(applied: Int, ignored: Int)
    case refused(storedGeneration: Int64)
}
