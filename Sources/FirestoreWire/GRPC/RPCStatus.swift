/// A `google.rpc.Status` (`google/rpc/status.proto`): `int32 code = 1` (a `google.rpc.Code`),
/// `string message = 2`; `repeated google.protobuf.Any details = 3` is skipped.
package struct RPCStatus: Sendable, Hashable {
    /// The numeric `google.rpc.Code`; 0 is `OK`.
    package var code: Int32
    /// The developer-facing message.
    package var message: String

    /// A status from its parts.
    package init(code: Int32, message: String) {
        self.code = code
        self.message = message
    }

    /// Decodes the fields of the current message of `reader`; unknown fields and `details` are skipped.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        var code: Int32 = 0
        var message = ""
        while let field = try reader.nextField() {
            switch field.number {
            case 1: code = try reader.readInt32(field, "code")
            case 2: message = try reader.readString(field, "message")
            default: try reader.skip(field)
            }
        }
        self.init(code: code, message: message)
    }

    /// This status as a ``FirestoreError`` from the server (``FirestoreError/isServerStatus``), or `nil` for
    /// `OK`.
    package var error: FirestoreError? {
        guard let code = FirestoreError.Code(rpcCode: code) else { return nil }
        var error = FirestoreError(code: code, message: message)
        error.isServerStatus = true
        return error
    }
}
