/// The names of HTTP/2's error codes (RFC 9113 §7), for messages: `RST_STREAM` and `GOAWAY` carry them.
enum HTTP2ErrorCode {
    private static let names = [
        "NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT", "STREAM_CLOSED",
        "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR", "ENHANCE_YOUR_CALM",
        "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED",
    ]

    /// `NO_ERROR` ... `HTTP_1_1_REQUIRED`, or `error 0x1f` for a code RFC 9113 does not name.
    static func name(_ code: UInt32) -> String {
        Int(code) < names.count ? names[Int(code)] : "error 0x" + String(code, radix: 16)
    }
}
