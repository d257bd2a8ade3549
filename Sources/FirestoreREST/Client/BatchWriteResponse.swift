import FirestoreWire

/// The result of one batchWrite (REST `BatchWriteResponse`: `{"writeResults": [...], "status": [...]}`): one outcome
/// per write, in request order, each applied or refused on its own (the request is not atomic).
package struct BatchWriteResponse: Sendable {
    /// Each write's result: its ``WriteResult``, or the ``FirestoreError`` of its `google.rpc.Status`.
    package var outcomes: [Result<WriteResult, FirestoreError>]

    /// Decodes the response to a batchWrite of `writeCount` writes.
    ///
    /// A `status` element is `{}` (code 0, OK, left out in proto3 JSON) or `{"code": n, "message": ...}`; an OK
    /// write's result is `{}` for a delete or `{"updateTime", "transformResults"}`. The response carries no commit
    /// time, so a delete's ``WriteResult/writeTime`` is the Node SDK's sentinel, 1970-01-01T00:00:00Z
    /// (`Timestamp.fromMillis(0)` in its `BulkCommitBatch`), and its ``WriteResult/updateTime`` `nil`.
    /// - Throws: ``FirestoreError`` `.internal`, saying that writes may have been applied, when the body is not an
    ///   object, `writeResults` or `status` is not an array of one object per write, a code is not an integer, a
    ///   time is not RFC 3339 or a transform result is not a Value.
    package init(decoding json: JSONValue, writeCount: Int) throws(FirestoreError) {
        func malformed(_ what: String) -> FirestoreError {
            FirestoreError(code: .internal, message: "batchWrite response (writes may have been applied): \(what)")
        }
        guard case .object = json else { throw malformed("the body is a \(json.typeName), not an object") }
        func elements(_ key: String) throws(FirestoreError) -> [JSONValue] {
            switch json[key] {
            case nil: return []
            case .array(let array)?:
                guard array.count == writeCount else {
                    throw malformed("\(array.count) \(key) elements for \(writeCount) writes")
                }
                return array
            case let other?: throw malformed("\(key) is a \(other.typeName)")
            }
        }
        let results = try elements("writeResults")
        let statuses = try elements("status")
        guard results.count == writeCount, statuses.count == writeCount else {
            throw malformed(
                "\(results.count) writeResults and \(statuses.count) status elements for \(writeCount) writes")
        }
        var outcomes: [Result<WriteResult, FirestoreError>] = []
        outcomes.reserveCapacity(writeCount)
        for index in 0..<writeCount {
            let status = statuses[index]
            guard case .object = status else { throw malformed("status[\(index)] is a \(status.typeName)") }
            let code: Int64
            switch status["code"] {
            case nil: code = 0
            case .integer(let number)?: code = number
            case let other?: throw malformed("status[\(index)].code is \(other.serializedString())")
            }
            if let errorCode = Int32(exactly: code).flatMap({ FirestoreError.Code(rpcCode: $0) }) {
                outcomes.append(
                    .failure(FirestoreError(code: errorCode, message: status["message"]?.stringValue ?? "")))
                continue
            }
            guard code == 0 else { throw malformed("status[\(index)].code \(code) is not a google.rpc.Code") }
            outcomes.append(.success(try Self.result(results[index], at: index, malformed)))
        }
        self.outcomes = outcomes
    }

    private static func result(
        _ element: JSONValue, at index: Int, _ malformed: (String) -> FirestoreError
    ) throws(FirestoreError) -> WriteResult {
        let (updateTime, transforms) = try WriteResultElement.decode(
            element, what: "writeResults[\(index)]", malformed)
        return WriteResult(
            updateTime: updateTime, writeTime: updateTime ?? Self.deleteWriteTime, transformResults: transforms)
    }

    /// The write time of a delete, which the response does not give: the epoch, as the Node SDK.
    package static let deleteWriteTime = Timestamp(uncheckedSeconds: 0, nanos: 0)
}
