import FirestoreREST
import FirestoreWire

/// The protobuf messages of `google.pubsub.v1.Publisher/Publish` (`google/pubsub/v1/pubsub.proto`,
/// googleapis/googleapis): `PublishRequest {string topic = 1; repeated PubsubMessage messages = 2}`, `PubsubMessage
/// {bytes data = 1; map<string, string> attributes = 2; string ordering_key = 5}` (the server's `message_id = 3` and
/// `publish_time = 4` are never sent) and `PublishResponse {repeated string message_ids = 1}`.
enum PubSubPublishRequest {
    /// The gRPC method path.
    static let method = "/google.pubsub.v1.Publisher/Publish"

    /// The serialized `PublishRequest` of `messages` to `topic`. Empty fields are left out (proto3); each attribute is
    /// a map entry `{string key = 1; string value = 2}`, in the order of their keys so that the bytes are the same
    /// each time.
    /// - Complexity: O(n) in the messages' bytes, plus O(a log a) for each message's `a` attributes.
    static func encode(_ messages: [PubSubMessage], to topic: PubSubTopic) -> [UInt8] {
        var writer = ProtobufWriter()
        writer.writeStringField(1, topic.name)
        for message in messages {
            writer.writeMessageField(2) { (writer: inout ProtobufWriter) in
                if !message.data.isEmpty { writer.writeBytesField(1, message.data) }
                for (key, value) in message.attributes.sorted(by: { $0.key < $1.key }) {
                    writer.writeMessageField(2) { (entry: inout ProtobufWriter) in
                        entry.writeStringField(1, key)
                        entry.writeStringField(2, value)
                    }
                }
                if !message.orderingKey.isEmpty { writer.writeStringField(5, message.orderingKey) }
            }
        }
        return writer.bytes
    }

    /// The message IDs of a serialized `PublishResponse`, in order; unknown fields skipped.
    /// - Throws: `FirestoreError` `.dataLoss` for bytes that are not a `PublishResponse`.
    static func messageIDs(_ response: [UInt8]) throws(FirestoreError) -> [String] {
        try ProtobufReader.read(response, message: "PublishResponse") { (reader) throws(FirestoreError) in
            var ids: [String] = []
            while let field = try reader.nextField() {
                if field.number == 1 {
                    ids.append(try reader.readString(field, "message_ids"))
                } else {
                    try reader.skip(field)
                }
            }
            return ids
        }
    }
}
