import FirestoreFeed
import FirestoreREST

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The proto3 JSON form of `ListenResponse` (the form Google's conformance `listen-*.json` tests and this
/// package's cassettes hold): `{"targetChange": {"targetChangeType": "CURRENT", "targetIds": [1],
/// "cause": {"code": 5, "message": "…"}, "resumeToken": "<base64>", "readTime": "<RFC 3339>"}}`,
/// `{"documentChange": {"document": <REST Document>, "targetIds": [], "removedTargetIds": []}}`,
/// `{"documentDelete"|"documentRemove": {"document": "<name>", "removedTargetIds": [], "readTime": "…"}}`,
/// `{"filter": {"targetId": 1, "count": 2, "unchangedNames": {"bits": {"bitmap": "<base64>", "padding": 0},
/// "hashCount": 3}}}`. Absent members take their proto3 defaults.
extension ListenResponse {
    /// Decodes the proto3 JSON form.
    /// - Throws: `FirestoreError` `.dataLoss` naming the member that has the wrong shape.
    package init(protoJSON json: JSONValue) throws(FirestoreError) {
        if let change = json["targetChange"] {
            let kind: ListenTargetChange.Kind
            switch change["targetChangeType"]?.stringValue ?? "NO_CHANGE" {
            case "NO_CHANGE": kind = .noChange
            case "ADD": kind = .add
            case "REMOVE": kind = .remove
            case "CURRENT": kind = .current
            case "RESET": kind = .reset
            case let other: throw Self.bad("targetChange.targetChangeType", "unknown value \(other)")
            }
            var cause: RPCStatus?
            if let status = change["cause"] {
                cause = RPCStatus(
                    code: try Self.int32(status["code"], "targetChange.cause.code") ?? 0,
                    message: status["message"]?.stringValue ?? "")
            }
            self = .targetChange(
                ListenTargetChange(
                    kind: kind, targetIDs: try Self.int32s(change["targetIds"], "targetChange.targetIds"),
                    cause: cause, resumeToken: try Self.bytes(change["resumeToken"], "targetChange.resumeToken"),
                    readTime: try Self.timestamp(change["readTime"], "targetChange.readTime")))
        } else if let change = json["documentChange"] {
            guard let document = change["document"] else { throw Self.bad("documentChange", "no document") }
            self = .documentChange(
                ListenDocumentChange(
                    document: try Document(restJSON: document),
                    targetIDs: try Self.int32s(change["targetIds"], "documentChange.targetIds"),
                    removedTargetIDs: try Self.int32s(change["removedTargetIds"], "documentChange.removedTargetIds")))
        } else if let delete = json["documentDelete"] {
            self = .documentDelete(
                ListenDocumentDelete(
                    documentName: delete["document"]?.stringValue ?? "",
                    removedTargetIDs: try Self.int32s(delete["removedTargetIds"], "documentDelete.removedTargetIds"),
                    readTime: try Self.timestamp(delete["readTime"], "documentDelete.readTime")))
        } else if let remove = json["documentRemove"] {
            self = .documentRemove(
                ListenDocumentRemove(
                    documentName: remove["document"]?.stringValue ?? "",
                    removedTargetIDs: try Self.int32s(remove["removedTargetIds"], "documentRemove.removedTargetIds"),
                    readTime: try Self.timestamp(remove["readTime"], "documentRemove.readTime")))
        } else if let filter = json["filter"] {
            var bloom: ListenBloomFilter?
            if let names = filter["unchangedNames"] {
                bloom = ListenBloomFilter(
                    bitmap: try Self.bytes(names["bits"]?["bitmap"], "filter.unchangedNames.bits.bitmap") ?? [],
                    padding: try Self.int32(names["bits"]?["padding"], "filter.unchangedNames.bits.padding") ?? 0,
                    hashCount: try Self.int32(names["hashCount"], "filter.unchangedNames.hashCount") ?? 0)
            }
            self = .filter(
                ListenExistenceFilter(
                    targetID: try Self.int32(filter["targetId"], "filter.targetId") ?? 0,
                    count: try Self.int32(filter["count"], "filter.count") ?? 0, unchangedNames: bloom))
        } else {
            self = .unrecognized
        }
    }

    private static func bad(_ member: String, _ reason: String) -> FirestoreError {
        FirestoreError(code: .dataLoss, message: "ListenResponse JSON: \(member): \(reason)")
    }

    /// An int32 given as a JSON number or a decimal string (proto3 JSON accepts both).
    private static func int32(_ json: JSONValue?, _ member: String) throws(FirestoreError) -> Int32? {
        switch json {
        case nil, .null?: return nil
        case .integer(let value)?:
            guard let narrow = Int32(exactly: value) else { throw bad(member, "\(value) is not an int32") }
            return narrow
        case .string(let text)?:
            guard let narrow = Int32(text) else { throw bad(member, "\"\(text)\" is not an int32") }
            return narrow
        case let other?: throw bad(member, "expected a number, found \(other.typeName)")
        }
    }

    private static func int32s(_ json: JSONValue?, _ member: String) throws(FirestoreError) -> [Int32] {
        guard let json, json != .null else { return [] }
        guard let elements = json.arrayValue else { throw bad(member, "expected an array, found \(json.typeName)") }
        var values: [Int32] = []
        for (index, element) in elements.enumerated() {
            guard let value = try int32(element, "\(member)[\(index)]") else { throw bad(member, "null element") }
            values.append(value)
        }
        return values
    }

    private static func bytes(_ json: JSONValue?, _ member: String) throws(FirestoreError) -> [UInt8]? {
        guard let json, json != .null else { return nil }
        guard let text = json.stringValue, let data = FirestoreValue.decodeBase64(text) else {
            throw bad(member, "expected base64 text")
        }
        return data.isEmpty ? nil : Array(data)
    }

    private static func timestamp(_ json: JSONValue?, _ member: String) throws(FirestoreError) -> Timestamp? {
        guard let json, json != .null else { return nil }
        guard let text = json.stringValue else { throw bad(member, "expected an RFC 3339 string") }
        return try Timestamp(rfc3339: text)
    }
}
