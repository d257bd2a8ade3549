import FirestoreFeed
import FirestoreREST

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Writing the proto3 JSON form of `ListenResponse` that `ListenResponse.init(protoJSON:)` reads (the form of
/// Google's conformance `listen-*.json` tests): lowerCamelCase member names, enums by name, `bytes` in standard
/// base64 with padding, timestamps in RFC 3339 (``Timestamp/rfc3339``), documents in their REST form
/// (`Document.restJSON(includingTimes:)`), and every member at its proto3 default left out (`NO_CHANGE`, empty
/// lists, `0`, `""`), as protobuf's JSON printers do:
///
/// ```json
/// {"targetChange": {"targetChangeType": "CURRENT", "targetIds": [1], "resumeToken": "CgkI…"}}
/// {"targetChange": {"readTime": "2026-11-29T12:43:15.453652Z"}}
/// {"filter": {"targetId": 1, "count": 2, "unchangedNames": {"bits": {"bitmap": "AQ==", "padding": 3}, "hashCount": 7}}}
/// ```
extension ListenResponse {
    /// This response as proto3 JSON; `{}` for ``unrecognized``. Decoding it with ``init(protoJSON:)`` gives
    /// this response back (`ListenProtoJSONTests`).
    /// - Complexity: O(n) in the size of the response.
    package var protoJSON: JSONValue {
        switch self {
        case .targetChange(let change):
            var members: [String: JSONValue] = [:]
            if change.kind != .noChange { members["targetChangeType"] = .string(change.kind.protoName) }
            Self.add(change.targetIDs, as: "targetIds", to: &members)
            if let cause = change.cause {
                var status: [String: JSONValue] = [:]
                if cause.code != 0 { status["code"] = .integer(Int64(cause.code)) }
                if !cause.message.isEmpty { status["message"] = .string(cause.message) }
                members["cause"] = .object(status)
            }
            Self.add(change.resumeToken, as: "resumeToken", to: &members)
            Self.add(change.readTime, as: "readTime", to: &members)
            return ["targetChange": .object(members)]
        case .documentChange(let change):
            var members: [String: JSONValue] = ["document": change.document.restJSON(includingTimes: true)]
            Self.add(change.targetIDs, as: "targetIds", to: &members)
            Self.add(change.removedTargetIDs, as: "removedTargetIds", to: &members)
            return ["documentChange": .object(members)]
        case .documentDelete(let delete):
            return ["documentDelete": Self.removal(delete.documentName, delete.removedTargetIDs, delete.readTime)]
        case .documentRemove(let remove):
            return ["documentRemove": Self.removal(remove.documentName, remove.removedTargetIDs, remove.readTime)]
        case .filter(let filter):
            var members: [String: JSONValue] = [:]
            if filter.targetID != 0 { members["targetId"] = .integer(Int64(filter.targetID)) }
            if filter.count != 0 { members["count"] = .integer(Int64(filter.count)) }
            if let bloom = filter.unchangedNames {
                var names: [String: JSONValue] = [:]
                var bits: [String: JSONValue] = [:]
                Self.add(bloom.bitmap, as: "bitmap", to: &bits)
                if bloom.padding != 0 { bits["padding"] = .integer(Int64(bloom.padding)) }
                if !bits.isEmpty { names["bits"] = .object(bits) }
                if bloom.hashCount != 0 { names["hashCount"] = .integer(Int64(bloom.hashCount)) }
                members["unchangedNames"] = .object(names)
            }
            return ["filter": .object(members)]
        case .unrecognized:
            return .object([:])
        }
    }

    /// A `DocumentDelete` or `DocumentRemove` body (`document`, `removedTargetIds`, `readTime`).
    private static func removal(_ name: String, _ removed: [Int32], _ readTime: Timestamp?) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if !name.isEmpty { members["document"] = .string(name) }
        add(removed, as: "removedTargetIds", to: &members)
        add(readTime, as: "readTime", to: &members)
        return .object(members)
    }

    private static func add(_ ids: [Int32], as name: String, to members: inout [String: JSONValue]) {
        if !ids.isEmpty { members[name] = .array(ids.map { .integer(Int64($0)) }) }
    }

    private static func add(_ bytes: [UInt8]?, as name: String, to members: inout [String: JSONValue]) {
        if let bytes, !bytes.isEmpty { members[name] = .string(Data(bytes).base64EncodedString()) }
    }

    private static func add(_ time: Timestamp?, as name: String, to members: inout [String: JSONValue]) {
        if let time { members[name] = .string(time.rfc3339) }
    }
}

extension ListenTargetChange.Kind {
    /// The `TargetChangeType` value name in `firestore.proto`: `NO_CHANGE`, `ADD`, `REMOVE`, `CURRENT`, `RESET`.
    package var protoName: String {
        switch self {
        case .noChange: "NO_CHANGE"
        case .add: "ADD"
        case .remove: "REMOVE"
        case .current: "CURRENT"
        case .reset: "RESET"
        }
    }
}
