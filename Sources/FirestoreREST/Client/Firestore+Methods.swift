import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Firestore {
    /// runQuery: POST `/v1/{parent}:runQuery` with `{"structuredQuery": ...}`.
    ///
    /// The response is one JSON array of stream elements; elements without a `document` (the `readTime`/`done`
    /// row, `skippedResults` rows) are skipped, never decoded (`RunQueryDecodingTests`).
    /// - Parameters:
    ///   - parent: the documents root or a document path (for subcollections).
    ///   - structuredQuery: the query, as the wire model holds it (REST sends its ``StructuredQuery/restJSON``).
    ///   - readTime: read the result as of this time (within the last 270 seconds), or now.
    ///   - transaction: read inside this transaction (the ID from ``beginTransaction(_:)``), or outside any.
    ///   - priority: how urgently the request needs a connection: ``HTTPRequest/Priority/background`` for a
    ///     change feed's polls.
    ///   - newTransaction: begin a transaction of this mode with this read (REST `newTransaction`); the
    ///     response's ``RunQueryResponse/transaction`` is its ID, for the reads and the commit that follow.
    /// - Throws: ``FirestoreError``: `.invalidArgument` before sending when more than one of `readTime`,
    ///   `transaction` and `newTransaction` is given; the server's error (also one that arrives as an element after
    ///   some documents), or `.internal` naming the element index when an element is malformed, or when the body
    ///   is empty.
    package func runQuery(
        parent: ResourcePath, structuredQuery: StructuredQuery, readTime: Timestamp? = nil, transaction: String? = nil,
        newTransaction: TransactionMode? = nil, priority: HTTPRequest.Priority = .normal
    ) async throws -> RunQueryResponse {
        try await routed {
            try await runQueryRPC(
                parent: parent, structuredQuery: structuredQuery, readTime: readTime, transaction: transaction,
                newTransaction: newTransaction, priority: priority)
        } rest: {
            try await runQueryREST(
                parent: parent, structuredQuery: structuredQuery, readTime: readTime, transaction: transaction,
                newTransaction: newTransaction, priority: priority)
        }
    }

    /// runQuery over REST (``runQuery(parent:structuredQuery:readTime:transaction:newTransaction:priority:)``).
    func runQueryREST(
        parent: ResourcePath, structuredQuery: StructuredQuery, readTime: Timestamp?, transaction: String?,
        newTransaction: TransactionMode?, priority: HTTPRequest.Priority
    ) async throws -> RunQueryResponse {
        var body: [String: JSONValue] = ["structuredQuery": structuredQuery.restJSON]
        try Self.addConsistency(
            readTime: readTime, transaction: transaction, newTransaction: newTransaction, to: &body)
        let (decoded, bytes) = try await callDecoding(
            "POST", encodedName(of: parent) + ":runQuery", body: .object(body), priority: priority
        ) { (data) throws(FirestoreError) in try Self.decodeRunQuery(body: data) }
        var response = decoded
        response.responseBytes = bytes
        return response
    }

    /// Decodes a runQuery response body (a JSON array of RunQueryResponse elements).
    /// - Throws: ``FirestoreError`` for an error element, or `.internal` naming the element index and what
    ///   was wrong.
    package static func decodeRunQuery(_ json: JSONValue) throws(FirestoreError) -> RunQueryResponse {
        let elements = try streamElements(json, method: "runQuery")
        var result = RunQueryResponse(documents: [], readTime: nil, skippedResults: 0)
        result.documents.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            try addRunQueryElement(element, position: position, to: &result)
        }
        return try finishRunQuery(result)
    }

    /// Decodes a runQuery response body from its bytes, one element at a time, so the response never exists
    /// as one JSON tree: the peak memory is the bytes, the documents and one element. An element of the common
    /// shape becomes its `Document` straight from the bytes (``RunQueryElementDecoder``); any other goes
    /// through its JSON tree. Same rules and errors as ``decodeRunQuery(_:)-(JSONValue)``, plus `.internal` with
    /// the byte offset for malformed JSON.
    /// - Parameter bytesFirst: `false` sends every element through its JSON tree (for tests and benchmarks that
    ///   hold the two paths together).
    package static func decodeRunQuery(body: Data, bytesFirst: Bool = true) throws(FirestoreError)
        -> RunQueryResponse
    {
        // An empty 200 body is broken, not "no documents".
        guard !body.isEmpty else { throw FirestoreError(code: .internal, message: "runQuery response body is empty") }
        guard body.first(where: { !(" \t\r\n".utf8.contains($0)) }) == UInt8(ascii: "[") else {
            // Not an array: an error object, or malformed; the tree decoder names which.
            let json: JSONValue
            do {
                json = body.isEmpty ? .object([:]) : try JSONValue.parse(body)
            } catch {
                throw FirestoreError(code: .internal, message: "runQuery response is not JSON: \(error)")
            }
            return try decodeRunQuery(json)
        }
        var result = RunQueryResponse(documents: [], readTime: nil, skippedResults: 0)
        do {
            // Each element straight from its bytes (RunQueryElementDecoder), or, where that gives up, through
            // its JSON tree: the same result and the same errors either way.
            try JSONValue.forEachElement(
                ofArray: body,
                fastPath: { bytes, start, _ in
                    guard bytesFirst else { return nil }
                    var reader = RESTByteReader(bytes: bytes, index: start)
                    guard let element = RunQueryElementDecoder.decode(&reader), element.add(to: &result) else {
                        return nil
                    }
                    return reader.index
                },
                { element, position in
                    guard case .object = element else {
                        throw FirestoreError(
                            code: .internal,
                            message: "runQuery element \(position) is a \(element.typeName), not an object")
                    }
                    if let error = element["error"] {
                        throw FirestoreError.decode(errorObject: error, httpStatus: 200)
                    }
                    try addRunQueryElement(element, position: position, to: &result)
                    result.elementsThroughTrees += 1
                })
        } catch let error as FirestoreError {
            throw error
        } catch {
            throw FirestoreError(code: .internal, message: "runQuery response is not JSON: \(error)")
        }
        return try finishRunQuery(result)
    }

    /// Adds one stream element: its read time, skipped rows and document (rows without one are skipped).
    static func addRunQueryElement(_ element: JSONValue, position: Int, to result: inout RunQueryResponse)
        throws(FirestoreError)
    {
        try noteReadTime(element, position: position, into: &result.readTime)
        try noteTransaction(element, position: position, method: "runQuery", into: &result.transaction)
        if let skipped = element["skippedResults"] {
            // An int32 in proto3 JSON: a number or a decimal string, never negative.
            let count: Int?
            switch skipped {
            case .integer(let number): count = Int(exactly: number)
            case .string(let text): count = Int(text)
            default: count = nil
            }
            guard let count, count >= 0, count <= Int(Int32.max) else {
                throw FirestoreError(
                    code: .internal,
                    message: "runQuery element \(position): skippedResults \(skipped.serializedString()) is not a count"
                )
            }
            let (total, overflow) = result.skippedResults.addingReportingOverflow(count)
            guard !overflow else {
                throw FirestoreError(code: .internal, message: "runQuery element \(position): skippedResults overflow")
            }
            result.skippedResults = total
        }
        guard let document = element["document"] else { return }
        do {
            result.documents.append(try Document(restJSON: document))
        } catch {
            throw FirestoreError(code: .internal, message: "runQuery element \(position): \(error.message)")
        }
    }

    /// Every stream carries a readTime, an empty result included (`[{"readTime","done":true}]`); a body
    /// without one (`[]`, `{}`, an empty 200) is broken and must not pass for "no documents".
    static func finishRunQuery(_ result: RunQueryResponse) throws(FirestoreError) -> RunQueryResponse {
        guard result.readTime != nil else {
            throw FirestoreError(code: .internal, message: "runQuery response carries no readTime")
        }
        return result
    }

    /// batchGet: POST `/v1/{database}/documents:batchGet`.
    /// - Parameters:
    ///   - names: full resource names of the documents.
    ///   - mask: only these fields, or all when `nil`.
    ///   - readTime: read as of this time, or now.
    ///   - transaction: read inside this transaction (the ID from ``beginTransaction(_:)``), or outside any.
    ///     This is how a transaction reads a document: the emulator hangs on a GET with `?transaction=`
    ///     (REST reference: `BatchGetDocumentsRequest.transaction`).
    ///   - priority: as for runQuery.
    ///   - newTransaction: begin a transaction of this mode with this read; the response's
    ///     ``BatchGetResponse/transaction`` is its ID (the emulator sends it as a first element of its own).
    /// - Throws: ``FirestoreError`` as ``runQuery(parent:structuredQuery:readTime:transaction:newTransaction:priority:)``.
    package func batchGet(
        names: [String], mask: [FieldPath]? = nil, readTime: Timestamp? = nil, transaction: String? = nil,
        newTransaction: TransactionMode? = nil, priority: HTTPRequest.Priority = .normal
    ) async throws -> BatchGetResponse {
        try await routed {
            try await batchGetRPC(
                names: names, mask: mask, readTime: readTime, transaction: transaction, newTransaction: newTransaction,
                priority: priority)
        } rest: {
            try await batchGetREST(
                names: names, mask: mask, readTime: readTime, transaction: transaction, newTransaction: newTransaction,
                priority: priority)
        }
    }

    /// batchGet over REST (``batchGet(names:mask:readTime:transaction:newTransaction:priority:)``).
    func batchGetREST(
        names: [String], mask: [FieldPath]?, readTime: Timestamp?, transaction: String?,
        newTransaction: TransactionMode?, priority: HTTPRequest.Priority
    ) async throws -> BatchGetResponse {
        var body: [String: JSONValue] = ["documents": .array(names.map { .string($0) })]
        if let mask { body["mask"] = ["fieldPaths": .array(mask.map { .string($0.description) })] }
        try Self.addConsistency(
            readTime: readTime, transaction: transaction, newTransaction: newTransaction, to: &body)
        let (json, bytes) = try await callMeasured(
            "POST", database.documentsRoot + ":batchGet", body: .object(body), priority: priority)
        guard bytes > 0 else {
            throw FirestoreError(code: .internal, message: "batchGet response body is empty")
        }
        var response = try Self.decodeBatchGet(json)
        response.responseBytes = bytes
        return response
    }

    /// Decodes a batchGet response body (a JSON array of `found`/`missing` elements).
    /// - Throws: ``FirestoreError`` for an error element or a malformed element.
    package static func decodeBatchGet(_ json: JSONValue) throws(FirestoreError) -> BatchGetResponse {
        let elements = try streamElements(json, method: "batchGet")
        var result = BatchGetResponse(found: [:], missing: [], readTime: nil)
        for (position, element) in elements.enumerated() {
            try noteReadTime(element, position: position, into: &result.readTime)
            try noteTransaction(element, position: position, method: "batchGet", into: &result.transaction)
            if let found = element["found"] {
                do {
                    let document = try Document(restJSON: found)
                    result.found[ByteExactName(name: document.name)] = document
                } catch {
                    throw FirestoreError(code: .internal, message: "batchGet element \(position): \(error.message)")
                }
            } else if let missing = element["missing"] {
                guard case .string(let name) = missing else {
                    throw FirestoreError(
                        code: .internal, message: "batchGet element \(position): missing is a \(missing.typeName)")
                }
                result.missing.append(name)
            } else if element["transaction"] == nil, element["readTime"] == nil {
                throw FirestoreError(
                    code: .internal, message: "batchGet element \(position) has neither found nor missing")
            }
        }
        return result
    }

    /// commit: POST `/v1/{database}/documents:commit` with the writes, applied atomically (REST reference:
    /// `projects.databases.documents.commit`). An empty list commits nothing and succeeds.
    /// - Parameters:
    ///   - writes: the writes, applied in order, all or none.
    ///   - transaction: commit inside this transaction (the ID from ``beginTransaction(_:)``), which ends it and
    ///     releases its locks (sent with ``HTTPRequest/Priority/high``, so it never waits for a connection
    ///     behind reads that wait for those locks); or `nil` for a plain atomic commit.
    /// - Throws: ``FirestoreError``, e.g. `.notFound` for an update of a missing document, `.alreadyExists`
    ///   for a create of an existing one, `.failedPrecondition` for an `updateTime` mismatch, `.aborted` when a
    ///   transaction lost a conflict (retry it whole), `.invalidArgument` for a transaction that is closed, or
    ///   before sending for a write that cannot carry ``serverTimestampField``; `.internal` when the response does
    ///   not hold one well-formed result per write (the commit was applied).
    @discardableResult
    package func commit(_ writes: [Write], transaction: String? = nil) async throws -> CommitResponse {
        let writes = try stampingServerTime(writes)
        return try await routed {
            try await commitRPC(writes, transaction: transaction)
        } rest: {
            try await commitREST(writes, transaction: transaction)
        }
    }

    /// commit over REST (``commit(_:transaction:)``), of writes already stamped with the server time.
    func commitREST(_ writes: [Write], transaction: String?) async throws -> CommitResponse {
        var body: [String: JSONValue] = ["writes": .array(writes.map { $0.restJSON(database: database) })]
        if let transaction { body["transaction"] = .string(transaction) }
        let json = try await call(
            "POST", database.documentsRoot + ":commit", body: .object(body),
            priority: transaction == nil ? .normal : .high)
        return try CommitResponse(decoding: json, writeCount: writes.count)
    }

    /// beginTransaction: POST `/v1/{database}/documents:beginTransaction` (REST reference:
    /// `projects.databases.documents.beginTransaction`). Most code wants ``runTransaction(maxAttempts:isolation:_:)``,
    /// which begins, retries and commits.
    /// - Returns: the transaction ID (base64), for `transaction:` of
    ///   ``batchGet(names:mask:readTime:transaction:newTransaction:priority:)``,
    ///   ``runQuery(parent:structuredQuery:readTime:transaction:newTransaction:priority:)``, ``commit(_:transaction:)`` and
    ///   ``rollback(transaction:)``.
    /// - Throws: ``FirestoreError`` from the server or the transport; `.internal` when the response has no ID.
    package func beginTransaction(_ mode: TransactionMode = .readWrite()) async throws -> String {
        try await routed {
            try await beginTransactionRPC(mode)
        } rest: {
            try await beginTransactionREST(mode)
        }
    }

    /// beginTransaction over REST (``beginTransaction(_:)``).
    func beginTransactionREST(_ mode: TransactionMode) async throws -> String {
        let json = try await call(
            "POST", database.documentsRoot + ":beginTransaction", body: ["options": mode.restJSON])
        guard case .string(let id)? = json["transaction"], !id.isEmpty else {
            throw FirestoreError(code: .internal, message: "beginTransaction response has no transaction ID")
        }
        return id
    }

    /// rollback: POST `/v1/{database}/documents:rollback`: ends a transaction without writing and releases its
    /// locks (sent with ``HTTPRequest/Priority/high``, like a transaction's commit). Rolling back a transaction
    /// twice succeeds on the emulator.
    /// - Throws: ``FirestoreError`` from the server or the transport.
    package func rollback(transaction: String) async throws {
        try await routed {
            try await rollbackRPC(transaction: transaction)
        } rest: {
            _ = try await call(
                "POST", database.documentsRoot + ":rollback", body: ["transaction": .string(transaction)],
                priority: .high)
        }
    }

    /// Adds the consistency selector (`readTime`, `transaction` or `newTransaction`, a oneof) to a read request
    /// body.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when more than one is given.
    static func addConsistency(
        readTime: Timestamp?, transaction: String?, newTransaction: TransactionMode? = nil,
        to body: inout [String: JSONValue]
    ) throws(FirestoreError) {
        let given = [readTime != nil, transaction != nil, newTransaction != nil].filter { $0 }.count
        guard given <= 1 else {
            throw .invalidArgument("a read takes one of readTime, transaction and newTransaction, not several")
        }
        if let readTime { body["readTime"] = .string(readTime.rfc3339) }
        if let transaction { body["transaction"] = .string(transaction) }
        if let newTransaction { body["newTransaction"] = newTransaction.restJSON }
    }

    /// Notes the `transaction` of a stream element (the ID a `newTransaction` read began).
    /// - Throws: ``FirestoreError`` `.internal` when it is not a non-empty string.
    static func noteTransaction(_ element: JSONValue, position: Int, method: String, into id: inout String?)
        throws(FirestoreError)
    {
        guard let value = element["transaction"] else { return }
        guard case .string(let text) = value, !text.isEmpty else {
            throw FirestoreError(
                code: .internal, message: "\(method) element \(position): transaction is not a transaction ID")
        }
        id = text
    }

    /// The elements of a streamed response, or the error element's error.
    static func streamElements(_ json: JSONValue, method: String) throws(FirestoreError) -> [JSONValue] {
        let elements: [JSONValue]
        switch json {
        case .array(let array): elements = array
        case .object where json["error"] != nil: elements = [json]
        default:
            throw FirestoreError(
                code: .internal,
                message:
                    "\(method) response is \(json.typeName == "object" ? "an" : "a") \(json.typeName), not an array")
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

    static func noteReadTime(_ element: JSONValue, position: Int, into latest: inout Timestamp?) throws(FirestoreError)
    {
        guard let value = element["readTime"] else { return }
        guard case .string(let text) = value else {
            throw FirestoreError(code: .internal, message: "element \(position) readTime is a \(value.typeName)")
        }
        let time: Timestamp
        do {
            time = try Timestamp(rfc3339: text)
        } catch {
            throw FirestoreError(code: .internal, message: "element \(position) readTime: \(error.message)")
        }
        if latest.map({ time > $0 }) ?? true { latest = time }
    }
}
