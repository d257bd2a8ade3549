import FirestoreWire

extension BatchWriteResponse {
    /// Decodes a `BatchWriteResponse` message (`google/firestore/v1/firestore.proto`) to a batchWrite of
    /// `writeCount` writes, with the REST decoder's rules (``init(decoding:writeCount:)``):
    /// `repeated WriteResult write_results = 1` (`update_time = 1`, `repeated Value transform_results = 2`),
    /// `repeated google.rpc.Status status = 2` (`int32 code = 1`, `string message = 2`; an empty message is OK).
    /// A write whose status is not OK fails with the status's code and message; a delete's write time is the epoch
    /// (``deleteWriteTime``).
    /// - Throws: ``FirestoreError`` `.internal`, saying that writes may have been applied, for malformed wire data
    ///   (naming the field and byte offset), a count of results or statuses other than `writeCount`, or a code that
    ///   is not a `google.rpc.Code`.
    /// - Complexity: O(n) in the bytes.
    package init(protobuf message: [UInt8], writeCount: Int) throws(FirestoreError) {
        func malformed(_ what: String) -> FirestoreError {
            FirestoreError(code: .internal, message: "batchWrite response (writes may have been applied): \(what)")
        }
        var results: [(updateTime: Timestamp?, transforms: [FirestoreValue])] = []
        var statuses: [(code: Int32, message: String)] = []
        do {
            try ProtobufReader.read(message, message: "BatchWriteResponse") { (reader) throws(FirestoreError) in
                while let field = try reader.nextField() {
                    switch field.number {
                    case 1:
                        results.append(
                            try reader.readMessage(field, "write_results") { (result) throws(FirestoreError) in
                                try Self.readWriteResult(&result)
                            })
                    case 2:
                        statuses.append(
                            try reader.readMessage(field, "status") { (status) throws(FirestoreError) in
                                let decoded = try RPCStatus(reading: &status)
                                return (decoded.code, decoded.message)
                            })
                    default: try reader.skip(field)
                    }
                }
            }
        } catch {
            throw malformed(error.message)
        }
        guard results.count == writeCount, statuses.count == writeCount else {
            throw malformed(
                "\(results.count) write_results and \(statuses.count) status elements for \(writeCount) writes")
        }
        var outcomes: [Result<WriteResult, FirestoreError>] = []
        outcomes.reserveCapacity(writeCount)
        for index in 0..<writeCount {
            let status = statuses[index]
            if let code = FirestoreError.Code(rpcCode: status.code) {
                outcomes.append(.failure(FirestoreError(code: code, message: status.message)))
                continue
            }
            guard status.code == 0 else {
                throw malformed("status[\(index)].code \(status.code) is not a google.rpc.Code")
            }
            let result = results[index]
            outcomes.append(
                .success(
                    WriteResult(
                        updateTime: result.updateTime, writeTime: result.updateTime ?? Self.deleteWriteTime,
                        transformResults: result.transforms)))
        }
        self.outcomes = outcomes
    }

    /// Reads one `WriteResult` (`google/firestore/v1/write.proto`: `update_time = 1`,
    /// `repeated Value transform_results = 2`).
    static func readWriteResult(_ reader: inout ProtobufReader) throws(FirestoreError)
        -> (updateTime: Timestamp?, transforms: [FirestoreValue])
    {
        var updateTime: Timestamp?
        var transforms: [FirestoreValue] = []
        while let member = try reader.nextField() {
            switch member.number {
            case 1:
                updateTime = try reader.readMessage(member, "update_time") { (time) throws(FirestoreError) in
                    try Timestamp(reading: &time)
                }
            case 2:
                transforms.append(
                    try reader.readMessage(member, "transform_results") { (value) throws(FirestoreError) in
                        try FirestoreValue(reading: &value)
                    })
            default: try reader.skip(member)
            }
        }
        return (updateTime, transforms)
    }
}
