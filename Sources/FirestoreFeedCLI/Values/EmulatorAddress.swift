/// Where the emulator is, as `--emulator` and `FIRESTORE_EMULATOR_HOST` take it: `HOST`, `HOST:PORT` or
/// `http://HOST:PORT` (`http://HOST` too), with HOST a name, an IPv4 address or an IPv6 address in brackets;
/// a missing port is 8080, the emulator's default (https://cloud.google.com/firestore/docs/emulator). Nothing
/// else is taken: no https (the emulator speaks plain http), no path, no user, no empty host.
package enum EmulatorAddress {
    /// The emulator's default port.
    package static let defaultPort = 8080

    /// The one-line explanation every refusal ends with.
    package static let expected = "expected HOST, HOST:PORT or http://HOST:PORT (e.g. 127.0.0.1:8080)"

    /// `HOST:PORT` for `text`, or `nil` when it is none of the accepted forms.
    /// - Complexity: O(n) in the length of `text`.
    package static func hostAndPort(_ text: String) -> String? {
        var rest = Substring(text)
        if rest.lowercased().hasPrefix("http://") { rest = rest.dropFirst("http://".count) }
        var host = rest
        var port = String(defaultPort)
        if rest.hasPrefix("[") {
            // [IPv6] or [IPv6]:PORT
            guard let close = rest.firstIndex(of: "]") else { return nil }
            host = rest[...close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return nil }
                port = String(after.dropFirst())
            }
            let inner = host.dropFirst().dropLast()
            guard !inner.isEmpty, inner.allSatisfy({ $0.isASCII && ($0.isHexDigit || $0 == ":" || $0 == ".") }) else {
                return nil
            }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                host = rest[..<colon]
                port = String(rest[rest.index(after: colon)...])
            }
            guard !host.isEmpty,
                host.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") })
            else { return nil }
        }
        guard !port.isEmpty, port.allSatisfy({ $0.isASCII && $0.isNumber }), port.count <= 5, let number = Int(port),
            (1...65_535).contains(number)
        else { return nil }
        return "\(host):\(number)"
    }
}
