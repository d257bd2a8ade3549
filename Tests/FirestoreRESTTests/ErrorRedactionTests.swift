import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// No error message shows a credential a server echoed back (issue 24): `Redaction.text` on its own, every
/// `FirestoreError` message, the server's errors for a request with a static token, and a token endpoint's refusal.
/// No network.
@Suite(.timeLimit(.minutes(1))) struct ErrorRedactionTests {
    static let jwt =
        "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJmZWVkQHAuaWFtLmdzZXJ2aWNlYWNjb3VudC5jb20ifQ.c2lnbmF0dXJlLWJ5dGVz"

    /// Text as a server could echo it, and as it may be shown.
    @Test(arguments: [
        (
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(jwt)",
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=<REDACTED>"
        ),
        (
            #"{"refresh_token": "r-secret-value", "client_secret":"c-secret-value", "client_id": "app"}"#,
            #"{"refresh_token": "<REDACTED>", "client_secret":"<REDACTED>", "client_id": "app"}"#
        ),
        (#"echo: {\"assertion\":\"a.b.c\",\"scope\":\"x\"}"#, #"echo: {\"assertion\":\"<REDACTED>\",\"scope\":\"x\"}"#),
        ("Authorization: Bearer opaque-token-1234", "Authorization: Bearer <REDACTED>"),
        ("authorization: Basic dXNlcjpwYXNz", "authorization: Basic <REDACTED>"),
        ("x-goog-api-key: k-1234567", "x-goog-api-key: <REDACTED>"),
        ("token Bearer abcdefgh-1 was refused", "token Bearer <REDACTED> was refused"),
        ("invalid token ya29.a0AfH6SMBx-secret_9 for user", "invalid token <REDACTED> for user"),
        ("refresh token 1//0gAbCdEfGhIjKl expired", "refresh token <REDACTED> expired"),
        ("client GOCSPX-AbCdEfGhIjKlMn is disabled", "client <REDACTED> is disabled"),
        ("key AIzaSyA1234567890abcdefghijklmnopqrstu denied", "key <REDACTED> denied"),
        ("bad assertion \(jwt.prefix(60))", "bad assertion <REDACTED>"),
        (
            "key -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY----- in body",
            "key <REDACTED> in body"
        ),
        (#""private_key": "-----BEGIN PRIVATE KEY-----\nMIIE"#, #""private_key": "<REDACTED>"#),
        ("password=hunter2&user=me", "password=<REDACTED>&user=me"),
    ])
    func credentialsAreReplaced(echoed: String, shown: String) {
        #expect(Redaction.text(echoed) == shown)
        #expect(Redaction.text(shown) == shown)
    }

    /// Messages without a credential are kept as they are, prose after a field's name included.
    @Test(arguments: [
        #"Document "projects/p/databases/(default)/documents/fruits/apple" not found."#,
        #"credentials service account JSON: "private_key": private key is not a readable PEM private key"#,
        #"credentials /home/u/adc.json: "refresh_token" is missing"#,
        "Request had invalid authentication credentials. Expected OAuth 2 access token.",
        "\nfalse for 'list' @ L7",
        "Bearer owner",
        "The query requires an index. You can create it here: https://console.firebase.google.com/v1/r/project/p/"
            + "firestore/indexes?create_composite=ClBwcm9qZWN0cy9wL2RhdGFiYXNlcy8oZGVmYXVsdCkvY29sbGVjdGlvbkdyb3Vwcy9j",
        "checkpoint store /tmp/x.sqlite: key \"orders\" is in use by another feed (process 4242)",
        "-----BEGIN CERTIFICATE-----\nMIIBszCCAVmgAwIBAgIU\n-----END CERTIFICATE-----",
    ])
    func otherTextIsKept(text: String) {
        #expect(Redaction.text(text) == text)
    }

    /// A credential the request carried is replaced wherever it appears, as sent and percent-encoded; a short one
    /// (the emulator's `owner`) is not searched for.
    @Test func knownCredentialsAreReplacedByValue() {
        #expect(
            Redaction.text(
                "server: static-token-42 rejected; 1%2F%2Fr-99-secret too",
                known: ["static-token-42", "1//r-99-secret"])
                == "server: <REDACTED> rejected; <REDACTED> too")
        #expect(Redaction.text("owner is not allowed", known: ["owner"]) == "owner is not allowed")
    }

    /// Every error's message is redacted, whether made, set, decoded from a body or cut to 200 characters.
    @Test func everyFirestoreErrorMessageIsRedacted() {
        var error = FirestoreError(code: .unknown, message: "sent Bearer ya29.a0AfH6SMBx-secret_9")
        #expect(error.message == "sent Bearer <REDACTED>")
        error.message = "token request: " + "refresh_token=1//0gAbCdEfGhIjKl"
        #expect(error.message == "token request: refresh_token=<REDACTED>")
        #expect(error.description == "unknown: token request: refresh_token=<REDACTED>")

        let json = #"{"error":{"code":400,"message":"bad grant assertion=\#(Self.jwt)","status":"INVALID_ARGUMENT"}}"#
        #expect(
            FirestoreError(status: 400, body: Data(json.utf8))
                == FirestoreError(code: .invalidArgument, message: "bad grant assertion=<REDACTED>", httpStatus: 400))

        // A proxy's page: the token at byte 180 is replaced before the message is cut to 200 characters.
        let page = String(repeating: "x", count: 170) + " Bearer " + "t0k3n-" + String(repeating: "z", count: 300)
        let cut = FirestoreError(status: 502, body: Data(page.utf8))
        #expect(cut.message == String(repeating: "x", count: 170) + " Bearer <REDACTED>")
    }

    /// A server that echoes a static token (no credential shape) in its refusal: the client knows what it sent.
    /// Before issue 24 the message held `my-static-token-0042` twice.
    @Test func aServerEchoingTheBearerTokenGetsItRedacted() async throws {
        let transport = ScriptedTransport { request, _ in
            let authorization = request.headers.first { $0.matches("Authorization") }?.value ?? ""
            let token = authorization.split(separator: " ").last.map(String.init) ?? ""
            return .error(403, "PERMISSION_DENIED", "caller \(authorization) (token \(token)) may not read c/d")
        }
        let db = try transport.firestore(
            credentials: StaticTokenCredentials(token: "my-static-token-0042"), retryPolicy: .none)
        let error = await #expect(throws: FirestoreError.self) { try await db.document("c/d").getDocument() }
        #expect(
            error
                == FirestoreError(
                    code: .permissionDenied, message: "caller Bearer <REDACTED> (token <REDACTED>) may not read c/d",
                    httpStatus: 403))
    }

    /// A token endpoint that echoes the refresh-token grant in `error_description` (cut to 200 characters): the
    /// refresh token and client secret are replaced before the cut. Before issue 24 both were shown.
    @Test func aTokenEndpointEchoingTheGrantGetsItRedacted() async throws {
        let transport = ScriptedTransport { request, _ in
            let form = String(decoding: request.body ?? Data(), as: UTF8.self)
            let body: JSONValue = ["error": "invalid_grant", "error_description": .string("Bad grant: \(form)")]
            return HTTPResponse(status: 400, body: body.serialized())
        }
        let json =
            #"{"type":"authorized_user","client_id":"app.apps.googleusercontent.com","client_secret":"s3cr3t-value","#
            + #""refresh_token":"opaque-refresh-value","token_uri":"https://oauth2.test/token"}"#
        let credentials = try AuthorizedUserCredentials(json: Data(json.utf8), transport: transport)
        let error = await #expect(throws: FirestoreError.self) { _ = try await credentials.authorizationHeader() }
        #expect(
            error?.message
                == "token request to https://oauth2.test:443/token failed with HTTP 400: invalid_grant: Bad grant: "
                + "grant_type=refresh_token&client_id=app.apps.googleusercontent.com&client_secret=<REDACTED>&"
                + "refresh_token=<REDACTED>")
    }
}
