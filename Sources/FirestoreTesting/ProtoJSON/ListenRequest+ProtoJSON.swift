import FirestoreFeed
import FirestoreREST

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The proto3 JSON form of `ListenRequest` (protobuf's JSON mapping, lowerCamelCase names, defaults left out),
/// the form a cassette records the requests of a Listen call in:
/// `{"database": "projects/p/databases/(default)", "addTarget": {"query": {"parent": "…/documents",
/// "structuredQuery": <REST StructuredQuery>}, "targetId": 1, "resumeToken": "<base64>"}}` or
/// `{"database": "…", "removeTarget": 1}`.
extension ListenRequest {
    /// This request as proto3 JSON. A query target's `structuredQuery` is the REST StructuredQuery JSON of its
    /// serialized message (`StructuredQueryProtobuf.decode(_:)`); `labels` appear when not empty.
    /// - Throws: `FirestoreError` `.dataLoss` when a query target's serialized `StructuredQuery` is malformed.
    /// - Complexity: O(n) in the size of the request.
    package func protoJSON() throws(FirestoreError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        if !database.isEmpty { members["database"] = .string(database) }
        switch targetChange {
        case .add(let target): members["addTarget"] = try target.protoJSON()
        case .remove(let targetID): members["removeTarget"] = .integer(Int64(targetID))
        }
        if !labels.isEmpty { members["labels"] = .object(labels.mapValues(JSONValue.string)) }
        return .object(members)
    }
}

extension ListenTarget {
    /// This target as proto3 JSON: `query` (`parent`, `structuredQuery`) or `documents` (`documents`), then
    /// `resumeToken` (standard base64) or `readTime` (RFC 3339), `targetId` unless 0, `once` when true,
    /// `expectedCount` when set (a `google.protobuf.Int32Value`: a plain number).
    /// - Throws: `FirestoreError` `.dataLoss` when the serialized `StructuredQuery` is malformed.
    package func protoJSON() throws(FirestoreError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        switch kind {
        case .query(let parent, let structuredQuery):
            var query: [String: JSONValue] = ["structuredQuery": try StructuredQueryProtobuf.decode(structuredQuery)]
            if !parent.isEmpty { query["parent"] = .string(parent) }
            members["query"] = .object(query)
        case .documents(let names):
            members["documents"] = names.isEmpty ? .object([:]) : ["documents": .array(names.map(JSONValue.string))]
        }
        switch resumePoint {
        case .resumeToken(let token)?: members["resumeToken"] = .string(Data(token).base64EncodedString())
        case .readTime(let time)?: members["readTime"] = .string(time.rfc3339)
        case nil: break
        }
        if targetID != 0 { members["targetId"] = .integer(Int64(targetID)) }
        if let expectedCount { members["expectedCount"] = .integer(Int64(expectedCount)) }
        return .object(members)
    }
}
