/// The `grpc-timeout` request header (gRPC's `PROTOCOL-HTTP2.md`: `Timeout → "grpc-timeout" TimeoutValue
/// TimeoutUnit`, a positive integer of at most 8 ASCII digits and one of `H`, `M`, `S`, `m`, `u`, `n`).
package enum GRPCTimeout {
    /// The header value for `seconds`: whole milliseconds rounded up (`m`) while they fit in 8 digits, else whole
    /// seconds (`S`), else hours (`H`), never less than `1m`.
    /// - Parameter seconds: the deadline from now, in seconds; zero, negative or NaN gives `1m`.
    package static func headerValue(seconds: Double) -> String {
        guard seconds.isFinite, seconds > 0 else { return "1m" }
        let limit = 99_999_999.0
        let milliseconds = (seconds * 1000).rounded(.up)
        if milliseconds <= limit { return "\(max(1, Int(milliseconds)))m" }
        let wholeSeconds = seconds.rounded(.up)
        if wholeSeconds <= limit { return "\(Int(wholeSeconds))S" }
        return "\(Int(min(limit, (seconds / 3600).rounded(.up))))H"
    }
}
