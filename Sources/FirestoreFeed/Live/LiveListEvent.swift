import FirestoreREST

/// One event of a live list's stream, as a browser's `EventSource` reads it (the `text/event-stream` format of the
/// HTML standard, https://html.spec.whatwg.org/multipage/server-sent-events.html).
///
/// Two types:
/// - `reset`: the whole list, `{"readTime": RFC 3339 or null, "documents": [REST Document, …]}` in query order.
/// - `patch`: what changed since the event before, ``LiveListPatch``'s JSON.
///
/// ``id`` orders the events of one ``LiveList``: a patch has the next number after the event before it; a reset
/// carries the number of the last event it includes, so a client that reconnects with that `Last-Event-ID` gets
/// exactly the events after it.
public struct LiveListEvent: Sendable, Hashable {
    /// The two event types.
    public enum Kind: String, Sendable, Hashable {
        /// The whole list.
        case reset
        /// The changes since the event before.
        case patch
    }

    /// The event's number (`id:` line).
    public let id: UInt64
    /// `reset` or `patch` (`event:` line).
    public let kind: Kind
    /// The event's JSON, on one line (`data:` line).
    public let data: String

    /// An event of `kind` numbered `id` carrying `data` (JSON without line breaks).
    public init(id: UInt64, kind: Kind, data: String) {
        self.id = id
        self.kind = kind
        self.data = data
    }

    /// The event as written to a `text/event-stream` response: `id: N\nevent: KIND\ndata: JSON\n\n`.
    public var serverSentEvent: String { "id: \(id)\nevent: \(kind.rawValue)\ndata: \(data)\n\n" }

    /// The reset of `documents` as of event `id`.
    static func reset(id: UInt64, documents: [Document], readTime: Timestamp?) -> LiveListEvent {
        let json: JSONValue = [
            "readTime": readTime.map { .string($0.rfc3339) } ?? .null,
            "documents": .array(documents.map { $0.restJSON() }),
        ]
        return LiveListEvent(id: id, kind: .reset, data: json.serializedString())
    }
}
