#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension GRPCStatusDetails {
    /// Details with these parts.
    package init(message: String = "", retryDelay: Duration? = nil, helpURLs: [String] = []) {
        self.message = message
        self.retryDelay = retryDelay
        self.helpURLs = helpURLs
    }

    /// The `grpc-status-details-bin` value of these details for a call that ended with status `number`: a
    /// `google.rpc.Status` (`code = 1`, `message = 2`, `details = 3`) holding a `RetryInfo` when ``retryDelay`` is
    /// set and one `Help` with a link per ``helpURLs``, base64 with padding. ``init(headers:)`` reads it back to
    /// these details. A cassette keeps a recorded gRPC error's details this way.
    /// - Complexity: O(message and links).
    package func headerValue(number: Int) -> String {
        var status = ProtobufWriter()
        if number != 0 { status.writeInt32Field(1, Int32(clamping: number)) }
        if !message.isEmpty { status.writeStringField(2, message) }
        if let retryDelay {
            Self.writeAny(to: &status, type: "google.rpc.RetryInfo") { info in
                info.writeMessageField(1) { duration in
                    let (seconds, attoseconds) = retryDelay.components
                    if seconds != 0 { duration.writeInt64Field(1, seconds) }
                    let nanos = Int32(attoseconds / 1_000_000_000)
                    if nanos != 0 { duration.writeInt32Field(2, nanos) }
                }
            }
        }
        if !helpURLs.isEmpty {
            Self.writeAny(to: &status, type: "google.rpc.Help") { help in
                for url in helpURLs {
                    help.writeMessageField(1) { link in link.writeStringField(2, url) }
                }
            }
        }
        return Data(status.bytes).base64EncodedString()
    }

    /// A `google.protobuf.Any` (`type_url = 1`, `value = 2`) as field 3 of a `Status`.
    private static func writeAny(to status: inout ProtobufWriter, type: String, _ body: (inout ProtobufWriter) -> Void)
    {
        var value = ProtobufWriter()
        body(&value)
        status.writeMessageField(3) { any in
            any.writeStringField(1, "type.googleapis.com/" + type)
            any.writeBytesField(2, value.bytes)
        }
    }
}
