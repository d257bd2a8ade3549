import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A service-account key: the JSON file Google Cloud issues for a service account
/// (`GOOGLE_APPLICATION_CREDENTIALS` usually points at one; https://cloud.google.com/iam/docs/keys-create-delete).
///
/// Only the members the client needs are kept: `client_email`, `private_key_id`, `private_key` (PKCS#8 or
/// PKCS#1 PEM, loaded with OpenSSL when the key is read, so a broken key fails here and not at the first
/// request), `project_id`, `token_uri` and `universe_domain`. The private key is never shown by
/// ``description`` or reflection.
public struct ServiceAccountKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The service account's email (`client_email`), the JWT issuer.
    public let clientEmail: String
    /// The key's ID (`private_key_id`), sent as the JWT header's `kid`; `nil` when the file has none.
    public let privateKeyID: String?
    /// The project the account belongs to (`project_id`), if named.
    public let projectID: String?
    /// Where JWTs are exchanged for access tokens (`token_uri`); `https://oauth2.googleapis.com/token` when
    /// the file names none.
    public let tokenURI: String
    /// The universe (`universe_domain`), `googleapis.com` unless the file names another.
    public let universeDomain: String
    /// The loaded private key.
    let privateKey: RSAPrivateKey

    /// Reads a key from the JSON text of a service-account key file.
    /// - Parameters:
    ///   - json: the file's bytes.
    ///   - source: names the key in error messages (a path, or `service account JSON`).
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming `source` and the member when the JSON is malformed,
    ///   `type` is not `service_account`, a required member (`client_email`, `private_key`) is missing, or the
    ///   private key cannot be loaded (with OpenSSL's reason). The key text never appears in the message.
    public init(json: Data, source: String = "service account JSON") throws(FirestoreError) {
        try self.init(file: CredentialsFile(data: json, source: source))
    }

    /// Reads the key file at `path`.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the file cannot be read, otherwise as
    ///   ``init(json:source:)``.
    public init(contentsOfFile path: String) throws(FirestoreError) {
        try self.init(file: CredentialsFile(contentsOfFile: path))
    }

    init(file: CredentialsFile) throws(FirestoreError) {
        let type = try file.type
        guard type == "service_account" else {
            throw .invalidArgument("credentials \(file.source): type is \"\(type)\", not \"service_account\"")
        }
        clientEmail = try file.string("client_email")
        privateKeyID = try file.optionalString("private_key_id")
        projectID = try file.optionalString("project_id")
        tokenURI = try file.url("token_uri", default: OAuthTokenEndpoint.googleTokenURI)
        universeDomain = try file.optionalString("universe_domain") ?? "googleapis.com"
        let pem = try file.string("private_key")
        do {
            privateKey = try RSAPrivateKey(pem: pem)
        } catch {
            throw .invalidArgument("credentials \(file.source): \"private_key\": \(error.message)")
        }
    }

    /// `ServiceAccountKey(client_email: ..., private_key_id: ..., private_key: <redacted>)`.
    public var description: String {
        "ServiceAccountKey(client_email: \(clientEmail), private_key_id: \(privateKeyID ?? "none"), "
            + "private_key: <redacted>)"
    }
    /// Same as ``description``.
    public var debugDescription: String { description }
    /// Shows the public members only.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "clientEmail": clientEmail, "privateKeyID": privateKeyID as Any, "projectID": projectID as Any,
                "tokenURI": tokenURI, "privateKey": "<redacted>",
            ])
    }
}
