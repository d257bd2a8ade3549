import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Compact RS256 JSON Web Tokens (RFC 7515 / 7519) as Google's OAuth 2 service-account flow uses them
/// (RFC 7519; https://developers.google.com/identity/protocols/oauth2/service-account#jwt-auth): `base64url(header) "."
/// base64url(claims) "." base64url(signature)`, base64url without padding, the signature RSASSA-PKCS1-v1_5 with SHA-256
/// over the first two parts.
enum JSONWebToken {
    /// The signed token.
    /// - Parameters:
    ///   - header: the JOSE header object (`alg` must be `RS256`); written with sorted keys.
    ///   - claims: the claims object; written with sorted keys.
    ///   - key: the RSA private key.
    /// - Throws: ``FirestoreError`` `.internal` when signing fails.
    static func signRS256(header: JSONValue, claims: JSONValue, key: RSAPrivateKey) throws(FirestoreError)
        -> String
    {
        let signingInput = base64URL(header.serialized()) + "." + base64URL(claims.serialized())
        let signature = try key.signSHA256(Data(signingInput.utf8))
        return signingInput + "." + base64URL(signature)
    }

    /// `data` in base64url (RFC 4648 §5: `-` and `_` instead of `+` and `/`), without `=` padding.
    static func base64URL(_ data: Data) -> String {
        var text = data.base64EncodedString()
        text = String(
            text.unicodeScalars.compactMap { scalar -> Character? in
                switch scalar {
                case "+": return "-"
                case "/": return "_"
                case "=": return nil
                default: return Character(scalar)
                }
            })
        return text
    }

    /// The bytes of base64url text (padding optional), or `nil` when it is not base64url.
    static func decodeBase64URL(_ text: String) -> Data? {
        var standard = String(
            text.unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "-": return "+"
                case "_": return "/"
                default: return Character(scalar)
                }
            })
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }
}
