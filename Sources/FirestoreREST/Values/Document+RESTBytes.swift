import FirestoreWire

extension Document {
    /// Decodes a REST `Document` object straight from its JSON bytes at `reader.index`, for the common shape:
    /// the members `name` (a string), `fields` (an object or `null`), `createTime` and `updateTime` (RFC 3339
    /// strings or `null`), each at most once, in any order. Anything else (snake_case spellings, unknown members,
    /// a value ``FirestoreValue/decodeREST(_:)`` leaves, malformed JSON) is `nil`: the caller leaves the bytes
    /// to `JSONValue.parse` and ``init(restJSON:)``, which returns the same document when this returns one.
    /// - Complexity: O(n) in the document's bytes.
    package static func decodeREST(_ reader: inout RESTByteReader) -> Document? {
        guard var more = reader.beginObject() else { return nil }
        var name: String?
        var fields: [String: FirestoreValue]?
        var createTime: Timestamp??
        var updateTime: Timestamp??
        while more {
            guard let member = reader.memberName() else { return nil }
            switch member.count {
            case 4 where reader.matches(member, "name") && name == nil:
                guard let text = reader.string() else { return nil }
                name = text
            case 6 where reader.matches(member, "fields") && fields == nil:
                if reader.consume("null") {
                    fields = [:]
                } else {
                    guard let decoded = FirestoreValue.decodeRESTFields(&reader) else { return nil }
                    fields = decoded
                }
            case 10 where reader.matches(member, "createTime") && createTime == nil:
                guard let time = decodeTime(&reader) else { return nil }
                createTime = time
            case 10 where reader.matches(member, "updateTime") && updateTime == nil:
                guard let time = decodeTime(&reader) else { return nil }
                updateTime = time
            default: return nil
            }
            guard let next = reader.nextMember() else { return nil }
            more = next
        }
        guard let name else { return nil }
        return Document(
            name: name, fields: fields ?? [:], createTime: createTime ?? nil, updateTime: updateTime ?? nil)
    }

    /// A time member's value: `.some(nil)` for `null`, `.some(time)` for an RFC 3339 string
    /// ``Timestamp/init(rfc3339:)`` takes, `nil` for anything else.
    static func decodeTime(_ reader: inout RESTByteReader) -> Timestamp?? {
        if reader.consume("null") { return .some(nil) }
        guard let text = reader.rawString() else { return nil }
        let slice = UnsafeBufferPointer(rebasing: reader.bytes[text])
        guard let time = try? Timestamp(rfc3339UTF8: slice, text: String(decoding: slice, as: UTF8.self)) else {
            return nil
        }
        return .some(time)
    }
}
