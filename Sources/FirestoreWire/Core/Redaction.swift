/// What of a request may be shown in an error message or a log: shared by the HTTP transport, the client and
/// the credential providers, so a secret in a URL (an API key in the query, user info) never reaches a message.
package enum Redaction {
    /// `url` reduced to `scheme://host:port/path`: the query (which may carry an API key), the fragment and
    /// any user info are dropped, and the scheme's default port is written out when the URL has none.
    package static func url(_ url: String) -> String {
        func isEnd(_ character: Character) -> Bool { character == "?" || character == "#" }
        guard let separator = url.firstRange(of: "://") else {
            return String(url.prefix { !isEnd($0) })
        }
        let scheme = url[..<separator.lowerBound].lowercased()
        let rest = url[separator.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || isEnd($0) } ?? rest.endIndex
        var authority = rest[..<authorityEnd]
        if let at = authority.lastIndex(of: "@") {
            authority = authority[authority.index(after: at)...]
        }
        let hasPort: Bool
        if authority.hasPrefix("[") {  // IPv6 literal: a port can only follow the closing bracket
            hasPort = authority.lastIndex(of: "]").map { authority[$0...].contains(":") } ?? false
        } else {
            hasPort = authority.contains(":")
        }
        var hostAndPort = String(authority)
        if !hasPort {
            switch scheme {
            case "http": hostAndPort += ":80"
            case "https": hostAndPort += ":443"
            default: break
            }
        }
        let path = rest[authorityEnd...].prefix { !isEnd($0) }
        return "\(scheme)://\(hostAndPort)\(path.isEmpty ? "/" : path)"
    }
}
