import FirestoreREST
import Foundation

/// The fields of a lease and a member document, written and read back: a field of the wrong type is an error that
/// names the document and the field, never a lease read as free.
package enum LeaseRecordCodec {
    /// The fields of `lease`, with `expireTime` (the writer's wall clock plus the lease length) for people reading
    /// the documents; members never compare it.
    package static func fields(of lease: ShardLease, expireTime: Timestamp) -> [String: FirestoreValue] {
        var fields: [String: FirestoreValue] = [
            "shard": .integer(Int64(lease.shard)), "owner": .string(lease.owner),
            "generation": .integer(lease.generation), "heartbeat": .integer(lease.heartbeat),
            "expireTime": lease.owner.isEmpty ? .null : .timestamp(expireTime),
            "readTime": .null, "resumeToken": .null,
        ]
        if let incarnation = lease.incarnation { fields["incarnation"] = .timestamp(incarnation) }
        if let checkpoint = lease.checkpoint {
            fields["readTime"] = .timestamp(checkpoint.readTime)
            fields["resumeToken"] = checkpoint.resumeToken.map { .bytes(Data($0)) } ?? .null
        }
        return fields
    }

    /// The lease stored in `snapshot` (shard `shard`); a document that does not exist is a free lease.
    /// - Throws: `FirestoreError` `.dataLoss` naming the document and the field that is missing or of another type.
    package static func lease(_ snapshot: DocumentSnapshot, shard: Int) throws(FirestoreError) -> ShardLease {
        guard let fields = snapshot.data() else { return ShardLease(shard: shard) }
        let path = snapshot.reference.path
        var lease = ShardLease(
            shard: shard, owner: try string(fields, "owner", path), generation: try integer(fields, "generation", path),
            heartbeat: try integer(fields, "heartbeat", path))
        switch fields["readTime"] {
        case .timestamp(let readTime)?:
            switch fields["resumeToken"] {
            case .bytes(let token)?: lease.checkpoint = ShardCheckpoint(readTime: readTime, resumeToken: Array(token))
            case .null?, nil: lease.checkpoint = ShardCheckpoint(readTime: readTime, resumeToken: nil)
            case let other?: throw wrongType(path, "resumeToken", "bytes", other)
            }
        case .null?, nil: break
        case let other?: throw wrongType(path, "readTime", "a timestamp", other)
        }
        switch fields["incarnation"] {
        case .timestamp(let incarnation)?: lease.incarnation = incarnation
        case .null?, nil: break
        case let other?: throw wrongType(path, "incarnation", "a timestamp", other)
        }
        return lease
    }

    /// The member stored in `snapshot`.
    /// - Throws: `FirestoreError` `.dataLoss` when its heartbeat is missing or not an integer.
    package static func member(_ snapshot: DocumentSnapshot) throws(FirestoreError) -> GroupMember? {
        guard let fields = snapshot.data() else { return nil }
        return GroupMember(
            id: snapshot.documentID, heartbeat: try integer(fields, "heartbeat", snapshot.reference.path))
    }

    private static func string(_ fields: [String: FirestoreValue], _ name: String, _ path: String)
        throws(FirestoreError) -> String
    {
        guard case .string(let value)? = fields[name] else { throw wrongType(path, name, "a string", fields[name]) }
        return value
    }

    private static func integer(_ fields: [String: FirestoreValue], _ name: String, _ path: String)
        throws(FirestoreError) -> Int64
    {
        guard case .integer(let value)? = fields[name] else {
            throw wrongType(path, name, "an integer", fields[name])
        }
        return value
    }

    private static func wrongType(_ path: String, _ field: String, _ expected: String, _ found: FirestoreValue?)
        -> FirestoreError
    {
        FirestoreError(
            code: .dataLoss,
            message: "feed group: \(path) field \(field) should be \(expected), found "
                + (found.map { "\($0)" } ?? "nothing") + "; the lease document was not written by firestore-feed")
    }
}
