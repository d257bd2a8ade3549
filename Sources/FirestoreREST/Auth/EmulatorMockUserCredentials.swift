import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A Firebase Authentication end user, for the emulator only: an unsigned ID token (a JWT with `alg: none` and an
/// empty signature) that the Firestore emulator accepts as `Authorization: Bearer <token>` and evaluates in security
/// rules as `request.auth.uid` (the token's `sub`) and `request.auth.token.*` (every claim, custom ones included).
///
/// This is the `mockUserToken` of the Firebase SDKs (`connectFirestoreEmulator(db, host, port, {mockUserToken})`,
/// https://firebase.google.com/docs/emulator-suite/connect_firestore) and what `@firebase/rules-unit-testing`'s
/// `authenticatedContext(uid, tokenOptions)` sends (https://firebase.google.com/docs/rules/unit-tests). The claims
/// are those of a Firebase ID token (https://firebase.google.com/docs/auth/admin/verify-id-tokens):
///
/// ```json
/// {"alg": "none", "typ": "JWT"} . {"aud": "<project>", "auth_time": 0, "exp": 3600,
///  "firebase": {"identities": {}, "sign_in_provider": "custom"}, "iat": 0,
///  "iss": "https://securetoken.google.com/<project>", "sub": "<uid>", "user_id": "<uid>", ...claims} .
/// ```
///
/// ``claims`` are added to these and replace any of the same name (`email`, `email_verified`, `firebase`, `exp`, a
/// custom claim such as `admin: true`), except the user's identity: `sub` and `user_id` are always the uid.
/// Production refuses such a token, and the client never sends it there (``CredentialsAudience/emulator``). Checked on
/// the emulator in `EmulatorAdminLiveTests`.
public struct EmulatorMockUserCredentials: Credentials, CustomStringConvertible {
    /// The user's ID (Firebase Auth `uid`, 1 to 128 characters): `sub` and `user_id` in the token.
    public let uid: String
    /// The project the token is issued for (`aud`, and `iss` `https://securetoken.google.com/<project>`).
    public let projectID: String
    /// The claims added to the standard ones (custom claims, `email`, ...), as given.
    public let claims: [String: JSONValue]
    /// The token's claims as sent: the standard ones with ``claims`` over them.
    public let payload: [String: JSONValue]
    /// The unsigned token: `base64url(header) "." base64url(payload) "."` (the signature is empty), keys sorted.
    public let token: String

    /// The credentials of user `uid` of `projectID` with `claims`.
    /// - Parameters:
    ///   - uid: the user's ID, 1 to 128 characters (the Firebase Auth limit).
    ///   - projectID: the emulator project the token is for.
    ///   - claims: custom claims and overrides of the standard claims; `uid` is refused (the user's ID is `sub`, as
    ///     `createMockUserToken` in the Firebase SDKs says), and `sub` or `user_id` other than `uid` are refused.
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming what is wrong: an empty or over-long uid, an empty
    ///   project, or a refused claim.
    /// - Complexity: O(n) in the size of the claims.
    public init(uid: String, projectID: String, claims: [String: JSONValue] = [:]) throws(FirestoreError) {
        guard !uid.isEmpty, uid.count <= 128 else {
            throw .invalidArgument(
                "emulator user: uid must be 1 to 128 characters (Firebase Auth), got \(uid.count)")
        }
        guard !projectID.isEmpty else { throw .invalidArgument("emulator user \(uid): empty project ID") }
        if claims["uid"] != nil {
            throw .invalidArgument(
                "emulator user \(uid): the claim \"uid\" is not a Firebase ID token claim; the user's ID is \"sub\", "
                    + "which is the uid given")
        }
        for name in ["sub", "user_id"] {
            if let value = claims[name], value != .string(uid) {
                throw .invalidArgument(
                    "emulator user \(uid): the claim \"\(name)\" (\(value.serializedString())) must be the uid")
            }
        }
        var payload: [String: JSONValue] = [
            "iss": .string("https://securetoken.google.com/\(projectID)"),
            "aud": .string(projectID),
            "iat": 0,
            "exp": 3600,
            "auth_time": 0,
            "firebase": .object(["sign_in_provider": "custom", "identities": .object([:])]),
        ]
        for (name, value) in claims { payload[name] = value }
        payload["sub"] = .string(uid)
        payload["user_id"] = .string(uid)
        self.uid = uid
        self.projectID = projectID
        self.claims = claims
        self.payload = payload
        let header: JSONValue = .object(["alg": "none", "typ": "JWT"])
        self.token =
            JSONWebToken.base64URL(header.serialized()) + "."
            + JSONWebToken.base64URL(JSONValue.object(payload).serialized())
            + "."
    }

    /// `Bearer <token>`.
    public func authorizationHeader() async throws -> String? { "Bearer " + token }

    /// ``CredentialsAudience/emulator``: never sent to production.
    public var audience: CredentialsAudience { .emulator }

    /// `EmulatorMockUserCredentials(uid: alice, project: demo-rules, claims: admin)`: the claim names, not their
    /// values.
    public var description: String {
        let names = claims.keys.sorted().joined(separator: ", ")
        return "EmulatorMockUserCredentials(uid: \(uid), project: \(projectID)"
            + (names.isEmpty ? ")" : ", claims: \(names))")
    }
}
