import Foundation

/// The documents of one runQuery call and the stream's metadata (`firestore-rest.md` §1.3).
public struct RunQueryResponse: Sendable, Hashable {
    /// The documents in query order.
    public var documents: [Document]
    /// The newest `readTime` of the stream: the time the result is consistent at.
    public var readTime: Timestamp?
    /// The total of `skippedResults` (rows an `offset` skipped).
    public var skippedResults: Int
}

/// The result of one batchGet call.
public struct BatchGetResponse: Sendable, Hashable {
    /// Found documents, keyed by resource name (the server may answer out of request order).
    public var found: [String: Document]
    /// Resource names of the requested documents that do not exist.
    public var missing: [String]
    /// The newest `readTime` of the stream.
    public var readTime: Timestamp?
}

/// The result of one commit.
public struct CommitResponse: Sendable, Hashable {
    /// One `updateTime` per write, in request order (`nil` for a delete).
    public var updateTimes: [Timestamp?]
    /// When the commit was applied.
    public var commitTime: Timestamp?
}

extension Firestore {
    /// runQuery: POST `/v1/{parent}:runQuery` with `{"structuredQuery": ...}`.
    ///
    /// The response is one JSON array of stream elements; elements without a `document` (the `readTime`/`done`
    /// row, `skippedResults` rows) are skipped, never decoded (field case D-22).
    /// - Parameters:
    ///   - parent: the documents root or a document path (for subcollections).
    ///   - structuredQuery: the StructuredQuery JSON.
    ///   - readTime: read the result as of this time (within the last 270 seconds), or now.
    /// - Throws: ``FirestoreError``: the server's error (also one that arrives as an element after some
    ///   documents), or `.internal` naming the element index when an element is malformed.
    public func runQuery(parent: ResourcePath, structuredQuery: JSONValue, readTime: Timestamp? = nil)
        async throws -> RunQueryResponse
    {
        var body: [String: JSONValue] = ["structuredQuery": structuredQuery]
        if let readTime { body["readTime"] = .string(readTime.rfc3339) }
        let json = try await call("POST", encodedName(of: parent) + ":runQuery", body: .object(body))
        return try Self.decodeRunQuery(json)
    }

    /// Decodes a runQuery response body (a JSON array of RunQueryResponse elements).
    /// - Throws: ``FirestoreError`` for an error element, or `.internal` naming the element index and what
    ///   was wrong.
    public static func decodeRunQuery(_ json: JSONValue) throws(FirestoreError) -> RunQueryResponse {
        let elements = try streamElements(json, method: "runQuery")
        var result = RunQueryResponse(documents: [], readTime: nil, skippedResults: 0)
        result.documents.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            try noteReadTime(element, position: position, into: &result.readTime)
            switch element["skippedResults"] {
            case .integer(let skipped)?: result.skippedResults += Int(clamping: skipped)
            case .string(let text)?: result.skippedResults += Int(text) ?? 0
            default: break
            }
            guard let document = element["document"] else { continue }
            do {
                result.documents.append(try Document(restJSON: document))
            } catch {
                throw FirestoreError(code: .internal, message: "runQuery element \(position): \(error.message)")
            }
        }
        return result
    }

    /// batchGet: POST `/v1/{database}/documents:batchGet`.
    /// - Parameters:
    ///   - names: full resource names of the documents.
    ///   - mask: only these fields, or all when `nil`.
    ///   - readTime: read as of this time, or now.
    /// - Throws: ``FirestoreError`` as ``runQuery(parent:structuredQuery:readTime:)``.
    public func batchGet(names: [String], mask: [FieldPath]? = nil, readTime: Timestamp? = nil)
        async throws -> BatchGetResponse
    {
        var body: [String: JSONValue] = ["documents": .array(names.map { .string($0) })]
        if let mask { body["mask"] = ["fieldPaths": .array(mask.map { .string($0.description) })] }
        if let readTime { body["readTime"] = .string(readTime.rfc3339) }
        let json = try await call("POST", database.documentsRoot + ":batchGet", body: .object(body))
        return try Self.decodeBatchGet(json)
    }

    /// Decodes a batchGet response body (a JSON array of `found`/`missing` elements).
    /// - Throws: ``FirestoreError`` for an error element or a malformed element.
    public static func decodeBatchGet(_ json: JSONValue) throws(FirestoreError) -> BatchGetResponse {
        let elements = try streamElements(json, method: "batchGet")
        var result = BatchGetResponse(found: [:], missing: [], readTime: nil)
        for (position, element) in elements.enumerated() {
            try noteReadTime(element, position: position, into: &result.readTime)
            if let found = element["found"] {
                do {
                    let document = try Document(restJSON: found)
                    result.found[document.name] = document
                } catch {
                    throw FirestoreError(code: .internal, message: "batchGet element \(position): \(error.message)")
                }
            } else if case .string(let name)? = element["missing"] {
                result.missing.append(name)
            }
        }
        return result
    }

    /// commit: POST `/v1/{database}/documents:commit` with the writes, applied atomically.
    /// - Throws: ``FirestoreError``, e.g. `.notFound` for an update of a missing document, `.alreadyExists`
    ///   for a create of an existing one, `.failedPrecondition` for an `updateTime` mismatch.
    public func commit(_ writes: [Write]) async throws -> CommitResponse {
        let body: JSONValue = ["writes": .array(writes.map { $0.restJSON(database: database) })]
        let json = try await call("POST", database.documentsRoot + ":commit", body: body)
        var response = CommitResponse(updateTimes: [], commitTime: nil)
        if case .string(let text)? = json["commitTime"] { response.commitTime = try? Timestamp(rfc3339: text) }
        for result in json["writeResults"]?.arrayValue ?? [] {
            response.updateTimes.append(result["updateTime"]?.stringValue.flatMap { try? Timestamp(rfc3339: $0) })
        }
        return response
    }

    /// The elements of a streamed response, or the error element's error.
    static func streamElements(_ json: JSONValue, method: String) throws(FirestoreError) -> [JSONValue] {
        let elements: [JSONValue]
        switch json {
        case .array(let array): elements = array
        case .object: elements = [json]
        default:
            throw FirestoreError(code: .internal, message: "\(method) response is a \(json.typeName), not an array")
        }
        for (position, element) in elements.enumerated() {
            guard case .object = element else {
                throw FirestoreError(
                    code: .internal, message: "\(method) element \(position) is a \(element.typeName), not an object")
            }
            if let error = element["error"] {
                throw FirestoreError.decode(errorObject: error, httpStatus: 200)
            }
        }
        return elements
    }

    static func noteReadTime(_ element: JSONValue, position: Int, into latest: inout Timestamp?) throws(FirestoreError) {
        guard case .string(let text)? = element["readTime"] else { return }
        let time: Timestamp
        do {
            time = try Timestamp(rfc3339: text)
        } catch {
            throw FirestoreError(code: .internal, message: "element \(position) readTime: \(error.message)")
        }
        if latest.map({ time > $0 }) ?? true { latest = time }
    }
}
