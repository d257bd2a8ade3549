import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Transaction IDs across the two protocols: REST carries the ID as base64 text (proto3 JSON of `bytes`), gRPC as
/// the bytes themselves. The client keeps the REST form everywhere, so an ID begun over one protocol can be used
/// over the other.
package enum RPCTransactionID {
    /// The bytes of a REST transaction ID.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when `id` is not base64 (standard or URL-safe alphabet,
    ///   padding optional, as proto3 JSON parsers accept).
    package static func bytes(_ id: String) throws(FirestoreError) -> [UInt8] {
        var text = String(id.map { $0 == "-" ? "+" : $0 == "_" ? "/" : $0 })
        while text.utf8.count % 4 != 0 { text += "=" }
        guard let data = Data(base64Encoded: text) else {
            throw .invalidArgument("transaction ID \"\(id)\" is not base64")
        }
        return Array(data)
    }

    /// The REST form (standard base64 with padding) of transaction ID bytes.
    package static func text(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
