import FirestoreREST
import Foundation

/// One message to publish: its data, its attributes and its ordering key, as Pub/Sub's `PubsubMessage` holds them
/// (https://cloud.google.com/pubsub/docs/reference/rest/v1/PubsubMessage). The server assigns the message ID and the
/// publish time.
public struct PubSubMessage: Sendable, Hashable {
    /// The payload (sent base64-encoded over REST).
    public var data: Data
    /// String attributes; a subscription can filter on them.
    public var attributes: [String: String]
    /// Messages with the same non-empty ordering key reach an ordered subscription in the order they were published;
    /// empty for no order.
    public var orderingKey: String

    /// A message of `data`, `attributes` and `orderingKey`.
    public init(data: Data, attributes: [String: String] = [:], orderingKey: String = "") {
        self.data = data
        self.attributes = attributes
        self.orderingKey = orderingKey
    }

    /// Pub/Sub's limits on one message (https://cloud.google.com/pubsub/quotas#resource_limits): an attribute key of
    /// at most 256 bytes, a value of at most 1,024 bytes, 100 attributes, an ordering key of at most 1,024 bytes.
    public static let maxAttributeKeyBytes = 256
    /// See ``maxAttributeKeyBytes``.
    public static let maxAttributeValueBytes = 1_024
    /// See ``maxAttributeKeyBytes``.
    public static let maxAttributes = 100
    /// See ``maxAttributeKeyBytes``.
    public static let maxOrderingKeyBytes = 1_024

    /// Why Pub/Sub would refuse this message, or `nil`: an empty message, or a limit above passed.
    public var problem: String? {
        if data.isEmpty && attributes.isEmpty { return "a message needs data or at least one attribute" }
        if attributes.count > Self.maxAttributes {
            return "\(attributes.count) attributes; at most \(Self.maxAttributes)"
        }
        for (key, value) in attributes.sorted(by: { $0.key < $1.key }) {
            if key.isEmpty || key.utf8.count > Self.maxAttributeKeyBytes {
                return
                    "attribute key \"\(key.prefix(40))\" is \(key.utf8.count) bytes; 1 to \(Self.maxAttributeKeyBytes)"
            }
            if value.utf8.count > Self.maxAttributeValueBytes {
                return "attribute \"\(key)\" is \(value.utf8.count) bytes; at most \(Self.maxAttributeValueBytes)"
            }
        }
        if orderingKey.utf8.count > Self.maxOrderingKeyBytes {
            return "ordering key is \(orderingKey.utf8.count) bytes; at most \(Self.maxOrderingKeyBytes)"
        }
        return nil
    }

    /// The REST `PubsubMessage` JSON.
    var restJSON: JSONValue {
        var members: [String: JSONValue] = [:]
        if !data.isEmpty { members["data"] = .string(data.base64EncodedString()) }
        if !attributes.isEmpty { members["attributes"] = .object(attributes.mapValues { .string($0) }) }
        if !orderingKey.isEmpty { members["orderingKey"] = .string(orderingKey) }
        return .object(members)
    }
}
