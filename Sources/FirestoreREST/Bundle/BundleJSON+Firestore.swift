import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Firestore's messages in the JSON form of protobuf.js, as the Node SDK writes them into a bundle
/// (`google/firestore/v1/document.proto`, `query.proto`, `firestore/bundle.proto`): members in field-number order,
/// int64 as decimal strings, a `Timestamp` as `{"seconds":"…","nanos":…}` without its zero parts, an `Int32Value`
/// as `{"value":…}`, enums by name, bytes in base64, a double that is not finite as a string.
extension BundleJSON {
    /// A `google.protobuf.Timestamp`: `{"seconds":"1577836805","nanos":6}`; zero parts are left out, as the Node
    /// SDK's `Timestamp.toProto()` leaves them (the epoch is `{}`).
    package static func timestamp(_ time: Timestamp) -> BundleJSON {
        var members: [(String, BundleJSON)] = []
        if time.seconds != 0 { members.append(("seconds", .string(String(time.seconds)))) }
        if time.nanos != 0 { members.append(("nanos", .integer(time.nanos))) }
        return .object(members)
    }

    /// A double as protobuf.js's JSON writes it: a JavaScript number, or `"NaN"`, `"Infinity"`, `"-Infinity"`.
    package static func double(_ number: Double) -> BundleJSON {
        number.isFinite ? .literal(javaScriptNumber(number)) : .string(javaScriptNumber(number))
    }

    /// A `google.firestore.v1.Value` with its one member.
    package static func value(_ value: FirestoreValue) -> BundleJSON {
        switch value {
        case .null: return .object([("nullValue", .string("NULL_VALUE"))])
        case .boolean(let flag): return .object([("booleanValue", .bool(flag))])
        case .integer(let number): return .object([("integerValue", .string(String(number)))])
        case .double(let number): return .object([("doubleValue", double(number))])
        case .timestamp(let time): return .object([("timestampValue", timestamp(time))])
        case .string(let text): return .object([("stringValue", .string(text))])
        case .bytes(let data): return .object([("bytesValue", .string(data.base64EncodedString()))])
        case .reference(let name): return .object([("referenceValue", .string(name))])
        case .geoPoint(let point):
            return .object([
                (
                    "geoPointValue",
                    .object([("latitude", double(point.latitude)), ("longitude", double(point.longitude))])
                )
            ])
        case .array(let values):
            return .object([("arrayValue", .object(values.isEmpty ? [] : [("values", .array(values.map(Self.value)))]))]
            )
        case .map(let fields):
            return .object([("mapValue", .object(fields.isEmpty ? [] : [("fields", Self.fields(fields))]))])
        }
    }

    /// A map of field names to values, in the order a JavaScript object keeps its keys (`Object.keys`): keys that
    /// are array indices (`0` ... `4294967294` in canonical decimal) first, ascending; then the others in insertion
    /// order, which for the Node SDK is the order the server sent. This writes the others in UTF-8 byte order.
    package static func fields(_ fields: [String: FirestoreValue]) -> BundleJSON {
        .object(javaScriptKeyOrder(fields.keys).map { ($0, value(fields[$0] ?? .null)) })
    }

    /// `keys` in `Object.keys` order, the non-index keys sorted by their UTF-8 bytes.
    package static func javaScriptKeyOrder(_ keys: some Collection<String>) -> [String] {
        func index(_ key: String) -> UInt32? {
            guard let number = UInt32(key), number < UInt32.max, String(number) == key else { return nil }
            return number
        }
        let indices = keys.compactMap { key in index(key).map { (key, $0) } }.sorted { $0.1 < $1.1 }.map(\.0)
        let names = keys.filter { index($0) == nil }.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        return indices + names
    }

    /// A `google.firestore.v1.Document`: `name`, `fields` (left out when empty), `createTime`, `updateTime`.
    package static func document(_ document: Document) -> BundleJSON {
        var members: [(String, BundleJSON)] = [("name", .string(document.name))]
        if !document.fields.isEmpty { members.append(("fields", fields(document.fields))) }
        if let createTime = document.createTime { members.append(("createTime", timestamp(createTime))) }
        if let updateTime = document.updateTime { members.append(("updateTime", timestamp(updateTime))) }
        return .object(members)
    }

    /// A `google.firestore.v1.StructuredQuery` from its REST JSON (proto3 JSON), members in field-number order. A
    /// `limit` of 0 is left out, as the Node SDK leaves it out.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a member a bundle cannot hold (`findNearest`: a vector
    ///   query) or a value that is not what the REST reference says.
    package static func structuredQuery(_ json: JSONValue) throws(FirestoreError) -> BundleJSON {
        try message(json, .structuredQuery, path: "structuredQuery")
    }

    /// The messages of a StructuredQuery, with their members in field-number order (REST reference:
    /// `StructuredQuery`, `google/firestore/v1/query.proto`).
    private enum Message {
        case structuredQuery, projection, fieldReference, collectionSelector, filter, compositeFilter, fieldFilter
        case unaryFilter, order, cursor

        var members: [(String, Member)] {
            switch self {
            case .structuredQuery:
                [
                    ("select", .message(.projection)), ("from", .messages(.collectionSelector)),
                    ("where", .message(.filter)), ("orderBy", .messages(.order)), ("limit", .int32Wrapper),
                    ("offset", .scalar), ("startAt", .message(.cursor)), ("endAt", .message(.cursor)),
                ]
            case .projection: [("fields", .messages(.fieldReference))]
            case .fieldReference: [("fieldPath", .scalar)]
            case .collectionSelector: [("collectionId", .scalar), ("allDescendants", .scalar)]
            case .filter:
                [
                    ("compositeFilter", .message(.compositeFilter)), ("fieldFilter", .message(.fieldFilter)),
                    ("unaryFilter", .message(.unaryFilter)),
                ]
            case .compositeFilter: [("op", .scalar), ("filters", .messages(.filter))]
            case .fieldFilter: [("field", .message(.fieldReference)), ("op", .scalar), ("value", .value)]
            case .unaryFilter: [("op", .scalar), ("field", .message(.fieldReference))]
            case .order: [("field", .message(.fieldReference)), ("direction", .scalar)]
            case .cursor: [("values", .values), ("before", .scalar)]
            }
        }
    }

    private enum Member {
        case scalar
        case message(Message)
        case messages(Message)
        case value, values, int32Wrapper
    }

    private static func message(_ json: JSONValue, _ message: Message, path: String) throws(FirestoreError)
        -> BundleJSON
    {
        guard case .object(let given) = json else {
            throw .invalidArgument("cannot bundle \(path): a \(json.typeName), not an object")
        }
        let known = message.members
        if let unknown = given.keys.sorted().first(where: { key in !known.contains { $0.0 == key } }) {
            throw .invalidArgument("cannot bundle \(path).\(unknown)")
        }
        var members: [(String, BundleJSON)] = []
        for (key, member) in known {
            guard let value = given[key], value != .null else { continue }
            let memberPath = "\(path).\(key)"
            switch member {
            case .scalar: members.append((key, try scalar(value, path: memberPath)))
            case .message(let inner): members.append((key, try self.message(value, inner, path: memberPath)))
            case .messages(let inner):
                guard case .array(let elements) = value else {
                    throw .invalidArgument("cannot bundle \(memberPath): a \(value.typeName), not an array")
                }
                var converted: [BundleJSON] = []
                for (position, element) in elements.enumerated() {
                    converted.append(try self.message(element, inner, path: "\(memberPath)[\(position)]"))
                }
                if !converted.isEmpty { members.append((key, .array(converted))) }
            case .value: members.append((key, Self.value(try firestoreValue(value, path: memberPath))))
            case .values:
                guard case .array(let elements) = value else {
                    throw .invalidArgument("cannot bundle \(memberPath): a \(value.typeName), not an array")
                }
                var converted: [BundleJSON] = []
                for (position, element) in elements.enumerated() {
                    converted.append(Self.value(try firestoreValue(element, path: "\(memberPath)[\(position)]")))
                }
                if !converted.isEmpty { members.append((key, .array(converted))) }
            case .int32Wrapper:
                guard case .integer(let limit) = value, let count = Int32(exactly: limit) else {
                    throw .invalidArgument("cannot bundle \(memberPath): \(value.serializedString()) is not an int32")
                }
                if count != 0 { members.append((key, .object([("value", .integer(count))]))) }
            }
        }
        return .object(members)
    }

    private static func scalar(_ json: JSONValue, path: String) throws(FirestoreError) -> BundleJSON {
        switch json {
        case .string(let text): return .string(text)
        case .bool(let flag): return .bool(flag)
        case .integer(let number): return .integer(number)
        case .double(let number): return double(number)
        default: throw .invalidArgument("cannot bundle \(path): a \(json.typeName)")
        }
    }

    private static func firestoreValue(_ json: JSONValue, path: String) throws(FirestoreError) -> FirestoreValue {
        do {
            return try FirestoreValue(restJSON: json)
        } catch {
            throw .invalidArgument("cannot bundle \(path): \(error.message)")
        }
    }
}
