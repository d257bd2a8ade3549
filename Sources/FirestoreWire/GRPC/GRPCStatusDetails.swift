#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a server's `grpc-status-details-bin` trailer adds to a failed call: the full `google.rpc.Status`
/// (`google/rpc/status.proto`: `code = 1`, `message = 2`, `repeated google.protobuf.Any details = 3`), base64
/// encoded as every `-bin` header is (gRPC's `PROTOCOL-HTTP2.md`, padding optional), with the details REST clients
/// find in the JSON error's `details` array (`google/rpc/error_details.proto`):
/// - `type.googleapis.com/google.rpc.RetryInfo` (`google.protobuf.Duration retry_delay = 1`: `seconds = 1`,
///   `nanos = 2`): how long to wait before retrying;
/// - `type.googleapis.com/google.rpc.Help` (`repeated Link links = 1`; `Link`: `description = 1`, `url = 2`): links
///   such as the console link that creates a missing composite index.
package struct GRPCStatusDetails: Sendable, Hashable {
    /// The status message, or empty.
    package var message: String = ""
    /// The `RetryInfo.retry_delay`, if one was sent.
    package var retryDelay: Duration?
    /// The `Help` links' URLs, in order.
    package var helpURLs: [String] = []

    /// The trailer's name.
    package static let headerName = "grpc-status-details-bin"

    /// Decodes the `grpc-status-details-bin` field of `headers` (trailers, or a trailers-only response's headers).
    /// - Returns: `nil` when there is none, or when it is not base64 of a well-formed `google.rpc.Status` (the
    ///   `grpc-status` and `grpc-message` still stand then).
    package init?(headers: [HTTPHeader]) {
        guard let value = headers.last(where: { $0.matches(Self.headerName) })?.value,
            let bytes = Self.base64Decoded(value)
        else { return nil }
        do {
            self = try ProtobufReader.read(bytes, message: "Status") { (reader) throws(FirestoreError) in
                try GRPCStatusDetails(reading: &reader)
            }
        } catch {
            return nil
        }
    }

    /// Decodes a `google.rpc.Status` message; unknown details are skipped.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        while let field = try reader.nextField() {
            switch field.number {
            case 2: message = try reader.readString(field, "message")
            case 3:
                try reader.readMessage(field, "details") { (any) throws(FirestoreError) in
                    try readDetail(&any)
                }
            default: try reader.skip(field)
            }
        }
    }

    /// Reads one `google.protobuf.Any` (`string type_url = 1`, `bytes value = 2`) and keeps what it knows.
    private mutating func readDetail(_ reader: inout ProtobufReader) throws(FirestoreError) {
        var typeURL = ""
        var value: [UInt8] = []
        while let field = try reader.nextField() {
            switch field.number {
            case 1: typeURL = try reader.readString(field, "type_url")
            case 2: value = try reader.readByteArray(field, "value")
            default: try reader.skip(field)
            }
        }
        switch typeURL {
        case "type.googleapis.com/google.rpc.RetryInfo":
            retryDelay = try ProtobufReader.read(value, message: "RetryInfo") { (info) throws(FirestoreError) in
                var delay: Duration?
                while let field = try info.nextField() {
                    guard field.number == 1 else {
                        try info.skip(field)
                        continue
                    }
                    delay = try info.readMessage(field, "retry_delay") { (duration) throws(FirestoreError) in
                        let (seconds, nanos) = try duration.readSecondsAndNanos()
                        return .seconds(max(0, seconds)) + .nanoseconds(max(0, Int64(nanos)))
                    }
                }
                return delay
            }
        case "type.googleapis.com/google.rpc.Help":
            helpURLs += try ProtobufReader.read(value, message: "Help") { (help) throws(FirestoreError) in
                var urls: [String] = []
                while let field = try help.nextField() {
                    guard field.number == 1 else {
                        try help.skip(field)
                        continue
                    }
                    let url = try help.readMessage(field, "links") { (link) throws(FirestoreError) in
                        var url = ""
                        while let part = try link.nextField() {
                            if part.number == 2 { url = try link.readString(part, "url") } else { try link.skip(part) }
                        }
                        return url
                    }
                    if !url.isEmpty { urls.append(url) }
                }
                return urls
            }
        default:
            break
        }
    }

    /// `error` with these details: ``FirestoreError/retryAfter`` from `RetryInfo` (unless already set), and each
    /// `Help` link the message does not contain yet appended to it, so that ``FirestoreError/indexURL`` finds the
    /// index link wherever the server put it.
    package func applied(to error: FirestoreError) -> FirestoreError {
        var result = error
        if result.retryAfter == nil, let retryDelay { result.retryAfter = retryDelay }
        let missing = helpURLs.filter { !result.message.contains($0) }
        if !missing.isEmpty { result.message += " (" + missing.joined(separator: ", ") + ")" }
        return result
    }

    /// The bytes of a base64 value with or without padding; `nil` for anything else.
    static func base64Decoded(_ text: String) -> [UInt8]? {
        var padded = text.filter { !$0.isWhitespace }
        while padded.utf8.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map { Array($0) }
    }
}
