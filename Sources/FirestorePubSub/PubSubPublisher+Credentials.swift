import FirestoreREST

extension PubSubPublisher {
    /// The OAuth scope for Pub/Sub.
    public static let pubsubScope = "https://www.googleapis.com/auth/pubsub"

    /// Credentials for Pub/Sub made from a Firestore client's `credentials`: a service-account key is asked for a
    /// token with ``pubsubScope`` (a token exchange) or signs its JWT for `https://pubsub.googleapis.com/` (self-signed
    /// mode), since a token scoped for Firestore (`datastore`) is refused by Pub/Sub; any other credentials (a user's,
    /// the metadata server's, whose tokens carry the account's scopes, usually `cloud-platform`) are used as they are.
    public static func credentials(from credentials: any Credentials) -> any Credentials {
        guard let account = credentials as? ServiceAccountCredentials else { return credentials }
        switch account.mode {
        case .tokenExchange:
            return ServiceAccountCredentials(key: account.key, mode: .tokenExchange, scopes: [pubsubScope])
        case .selfSignedJWT:
            return ServiceAccountCredentials(
                key: account.key, mode: .selfSignedJWT(audience: "https://pubsub.googleapis.com/"))
        }
    }
}
