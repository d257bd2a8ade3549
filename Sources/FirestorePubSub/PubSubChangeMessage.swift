internal import COpenSSL
import FirestoreFeed
import FirestoreREST
import Foundation

/// How a document change becomes one Pub/Sub message, the format a consumer reads (stable; documented in README's
/// "Publishing changes to Pub/Sub"):
///
/// - **Ordering key**: the document's full name (`projects/P/databases/D/documents/…`), so an ordered subscription
///   delivers one document's changes in the order they were published. A name over Pub/Sub's 1,024-byte limit is
///   replaced by `sha256:` and the 64 hex digits of its SHA-256 (still one key per document).
/// - **Data**: JSON. A document that is there: the REST `Document` (`name`, `fields` as typed REST `Value`s,
///   `createTime`, `updateTime`), what the SQLite and PostgreSQL mirrors store. A removal: `{"name": …, "removed":
///   true}`.
/// - **Attributes**: `name` (the ordering key above), `changeType` (`added`, `modified`, `removed`), `updateTime`
///   (the document's update time; for a removal the read time of the snapshot that saw it leave, which is later than
///   every version it ends), `readTime` (the snapshot's), and with a feed group `shard` and `generation` (the fencing
///   token). Times are RFC 3339 in UTC with exactly 9 fraction digits, so comparing their text compares the times.
///
/// **The consumer's rule** for an exactly-once effect (the mirrors' version guard): per `name`, keep the `updateTime`
/// and `readTime` applied last, a removal as a tombstone; a document applies if its `updateTime` is later, or if a
/// tombstone is held from an earlier `readTime`; a removal applies if both its `updateTime` and its `readTime` are
/// later. A duplicate (after a publisher restart, or a retried publish) carries the same (`name`, `updateTime`) and
/// changes nothing.
public enum PubSubChangeMessage {
    /// The message of `change` from a snapshot read at `readTime`; with a feed group, its `shard` and `generation`.
    /// - Throws: `FirestoreError` `.invalidArgument` when the change has no document, or a document that is there has
    ///   no update time (nothing to order it by), naming the document.
    public static func message(
        for change: DocumentChange, readTime: Timestamp, shard: Int? = nil, generation: Int64? = nil
    ) throws(FirestoreError) -> PubSubMessage {
        guard let document = change.document.document else {
            throw .invalidArgument("change of \(change.document.documentID): no document to publish")
        }
        var message: PubSubMessage
        if change.type == .removed {
            message = removal(name: document.name, readTime: readTime)
        } else if let updateTime = document.updateTime {
            let key = orderingKey(for: document.name)
            message = PubSubMessage(
                data: document.restJSON().serialized(),
                attributes: [
                    "name": key, "changeType": change.type.rawValue, "updateTime": MirrorTimeText.text(updateTime),
                    "readTime": MirrorTimeText.text(readTime),
                ], orderingKey: key)
        } else {
            throw .invalidArgument("document \(document.name) has no updateTime: nothing to order its changes by")
        }
        if let shard { message.attributes["shard"] = String(shard) }
        if let generation { message.attributes["generation"] = String(generation) }
        return message
    }

    /// The removal of the document named `name`, seen gone at `readTime` (no shard).
    static func removal(name: String, readTime: Timestamp) -> PubSubMessage {
        let key = orderingKey(for: name)
        let time = MirrorTimeText.text(readTime)
        let data: JSONValue = ["name": .string(name), "removed": true]
        return PubSubMessage(
            data: data.serialized(),
            attributes: ["name": key, "changeType": "removed", "updateTime": time, "readTime": time],
            orderingKey: key)
    }

    /// The messages of `snapshot`'s changes, in its order (each document once).
    /// - Throws: as ``message(for:readTime:shard:generation:)``; `.invalidArgument` when the snapshot has no read
    ///   time.
    public static func messages(
        for snapshot: QuerySnapshot, shard: Int? = nil, generation: Int64? = nil
    ) throws(FirestoreError) -> [PubSubMessage] {
        guard let readTime = snapshot.readTime else {
            throw .invalidArgument("a snapshot without a read time cannot be published: nothing to order removals by")
        }
        var messages: [PubSubMessage] = []
        messages.reserveCapacity(snapshot.documentChanges.count)
        for change in snapshot.documentChanges {
            messages.append(try message(for: change, readTime: readTime, shard: shard, generation: generation))
        }
        return messages
    }

    /// `name`, or `sha256:<hex>` of it when it is over ``PubSubMessage/maxOrderingKeyBytes``.
    static func orderingKey(for name: String) -> String {
        let bytes = Array(name.utf8)
        guard bytes.count > PubSubMessage.maxOrderingKeyBytes else { return name }
        return "sha256:" + sha256Hex(bytes)
    }

    /// The SHA-256 of `bytes` in 64 lowercase hex digits.
    static func sha256Hex(_ bytes: [UInt8]) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = bytes.withUnsafeBufferPointer { input in
            digest.withUnsafeMutableBufferPointer { output in
                SHA256(input.baseAddress, input.count, output.baseAddress)
            }
        }
        let hex = Array("0123456789abcdef".utf8)
        return String(decoding: digest.flatMap { [hex[Int($0 >> 4)], hex[Int($0 & 0x0F)]] }, as: UTF8.self)
    }
}
