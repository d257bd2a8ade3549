#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Where an HTTP message carries credentials: the header, query parameter and body field names whose values are
/// secrets. One list for the library's error messages (``Redaction/text(_:known:)`` with the values a request
/// carried) and for the cassette recorder's scrubber (FirestoreTesting's `SecretScrubber` starts from
/// ``standard``).
package struct CredentialNames: Sendable {
    /// Header names, lowercased: `authorization`, `proxy-authorization`, `x-goog-api-key`, `x-firebase-appcheck`,
    /// `cookie`, `set-cookie`.
    package var headers: Set<String>
    /// Query parameter names: `key`, `access_token`.
    package var queryParameters: Set<String>
    /// Form field and JSON member names: the OAuth token request's `assertion`, `client_secret`, `refresh_token`,
    /// the token response's `access_token`, `id_token`; a service-account key's `private_key`; `password`.
    package var fields: Set<String>

    package init(headers: Set<String>, queryParameters: Set<String>, fields: Set<String>) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryParameters = queryParameters
        self.fields = fields
    }

    /// The names above.
    package static let standard = CredentialNames(
        headers: [
            "authorization", "proxy-authorization", "x-goog-api-key", "x-firebase-appcheck", "cookie", "set-cookie",
        ],
        queryParameters: ["key", "access_token"],
        fields: ["assertion", "client_secret", "refresh_token", "access_token", "id_token", "private_key", "password"])

    /// The credential values of one HTTP message: the values of the listed headers (the credential after a scheme
    /// word: `ya29.x` of `Bearer ya29.x`), of the listed parameters of `query` (`a=1&key=x`, as sent and
    /// percent-decoded), and of the listed fields of `body`, a JSON document (string members at any depth) or an
    /// `application/x-www-form-urlencoded` form (as sent and decoded). Empty values are left out.
    /// - Complexity: O(n) in the message's size.
    package func values(headers list: [(name: String, value: String)], query: Substring, body: Data?) -> Set<String> {
        var found: Set<String> = []
        for header in list where headers.contains(header.name.lowercased()) {
            found.insert(Self.splitScheme(header.value).credential)
        }
        for item in query.split(separator: "&") {
            let (name, value) = Self.splitPair(item)
            if queryParameters.contains(name) {
                found.insert(value)
                found.insert(Self.percentDecoded(value[...], plusIsSpace: false))
            }
        }
        if let body, !body.isEmpty {
            if let json = try? JSONValue.parse(body) {
                found.formUnion(fieldValues(in: json))
            } else {
                for (name, value) in Self.formPairs(body) ?? [] where fields.contains(Self.decodedName(name)) {
                    found.insert(value)
                    found.insert(Self.percentDecoded(value[...], plusIsSpace: true))
                }
            }
        }
        found.remove("")
        return found
    }

    /// The string values of the listed fields in `json`, at any depth.
    package func fieldValues(in json: JSONValue) -> Set<String> {
        var found: Set<String> = []
        func collect(_ json: JSONValue) {
            switch json {
            case .object(let members):
                for (key, value) in members {
                    if fields.contains(key), case .string(let text) = value {
                        if !text.isEmpty { found.insert(text) }
                    } else {
                        collect(value)
                    }
                }
            case .array(let elements):
                for element in elements { collect(element) }
            default:
                break
            }
        }
        collect(json)
        return found
    }

    // MARK: - Text helpers

    /// `("Bearer", "ya29.x")` for `Bearer ya29.x`; `("", value)` when the value has no scheme word.
    package static func splitScheme(_ value: String) -> (scheme: String, credential: String) {
        let trimmed = trimmed(value)
        guard let space = trimmed.firstIndex(of: " ") else { return ("", trimmed) }
        let scheme = String(trimmed[..<space])
        let credential = Self.trimmed(String(trimmed[space...]))
        guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" }) else {
            return ("", trimmed)
        }
        return (scheme, credential)
    }

    /// `(name, value)` of `name=value` (the name percent-decoded); a bare `name` has an empty value.
    package static func splitPair(_ item: Substring) -> (String, String) {
        guard let equals = item.firstIndex(of: "=") else { return (percentDecoded(item, plusIsSpace: false), "") }
        return (percentDecoded(item[..<equals], plusIsSpace: false), String(item[item.index(after: equals)...]))
    }

    /// A form or query name with `+` and `%XX` decoded.
    package static func decodedName(_ name: String) -> String { percentDecoded(name[...], plusIsSpace: true) }

    /// The `name=value` pairs of an `application/x-www-form-urlencoded` body (both still encoded), or `nil`
    /// when the body does not look like one (not UTF-8, white space, a piece without `=`).
    package static func formPairs(_ body: Data) -> [(String, String)]? {
        guard let text = String(validating: body, as: UTF8.self), !text.isEmpty,
            !text.contains(where: { $0.isWhitespace })
        else { return nil }
        var pairs: [(String, String)] = []
        for piece in text.split(separator: "&", omittingEmptySubsequences: false) {
            guard let equals = piece.firstIndex(of: "="), equals != piece.startIndex else { return nil }
            let name = String(piece[..<equals])
            guard name.allSatisfy({ $0.isLetter || $0.isNumber || "_-.%".contains($0) }) else { return nil }
            pairs.append((name, String(piece[piece.index(after: equals)...])))
        }
        return pairs
    }

    /// `text` with each `%XX` replaced by its byte (and `+` by a space when `plusIsSpace`), read as UTF-8; a `%` not
    /// followed by two hex digits stays.
    static func percentDecoded(_ text: Substring, plusIsSpace: Bool) -> String {
        guard text.contains("%") || (plusIsSpace && text.contains("+")) else { return String(text) }
        var bytes: [UInt8] = []
        var rest = Array(text.utf8)[...]
        while let byte = rest.popFirst() {
            let pair = rest.prefix(2)
            if byte == UInt8(ascii: "%"), pair.count == 2,
                pair.allSatisfy({ $0 < 0x80 && Character(.init($0)).isHexDigit }),
                let value = UInt8(String(decoding: pair, as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? 0x20 : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func trimmed(_ text: String) -> String {
        String(
            text.drop(while: { $0 == " " || $0 == "\t" }).reversed().drop(while: { $0 == " " || $0 == "\t" }).reversed()
        )
    }
}
