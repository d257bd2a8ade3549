import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// A server that echoes the request back in its error never gets a credential printed: the CLI's stderr shows
/// `<REDACTED>` where the refresh token, client secret, signed JWT assertion or bearer token was (issue 24). Two
/// ``LoopbackAuthServer``s play Google: one over http for the token endpoint (its `/token-echo` answers 400 with the
/// form it received), one over TLS for Firestore (`--endpoint`, `--ca-bundle`; a document under `echo/` gets 403
/// naming the `Authorization` header). No emulator.
@Suite(.serialized, .timeLimit(.minutes(2))) struct CLIRedactionTests {
    static let clientSecret = "cli-client-secret-4711"
    static let refreshToken = "1//0g-cli-refresh-token-4711"

    /// Runs `firestore-feed get echo/doc` with the credentials file `json(tokenServer)`, expects it to fail (exit
    /// 1), and returns its stderr with the token server's address written `TOKENS`.
    static func stderr(credentials json: (LoopbackAuthServer) -> String) async throws -> String {
        let folder = try OpenSSLTool.temporaryFolder("cli-redaction")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await LoopbackNginx.makeCertificates(in: folder)
        let firestore = try await LoopbackAuthServer.start(
            certificate: folder.appendingPathComponent("server.pem"),
            key: folder.appendingPathComponent("server-key.pem"))
        defer { firestore.stop() }
        return try await LoopbackAuthServer.with { tokens in
            let file = folder.appendingPathComponent("credentials.json")
            try Data(json(tokens).utf8).write(to: file)
            let result = try await CLIProcess(
                [
                    "get", "echo/doc", "--credentials", file.path, "--project", "demo-echo", "--endpoint",
                    firestore.baseURL, "--ca-bundle", folder.appendingPathComponent("ca.pem").path,
                ], environment: CLIEnvironment.production(home: folder.path)
            ).finish()
            #expect(result.status == 1)
            return result.stderr.replacing(tokens.baseURL, with: "TOKENS")
        }
    }

    static func authorizedUser(tokenURI: String) -> String {
        #"{"type":"authorized_user","client_id":"cli-test.apps.googleusercontent.com","#
            + #""client_secret":"\#(clientSecret)","refresh_token":"\#(refreshToken)","token_uri":"\#(tokenURI)"}"#
    }

    /// The token endpoint echoes the refresh-token grant. Before issue 24 stderr held both secrets (the form cut to
    /// 200 bytes: `...client_secret=cli-client-secret-4711&refresh_token=1%2F%2F0g-cli-refresh-token-4711`).
    @Test func anEchoedRefreshTokenGrantIsRedacted() async throws {
        #expect(
            try await Self.stderr { Self.authorizedUser(tokenURI: $0.baseURL + "/token-echo") }
                == "error: unauthenticated: token request to TOKENS/token-echo failed with HTTP 400: invalid_request: "
                + "cannot use grant_type=refresh_token&client_id=cli-test.apps.googleusercontent.com&client_secret="
                + "<REDACTED>&refresh_token=<REDACTED>\n")
    }

    /// The token endpoint echoes the JWT-bearer grant. Before issue 24 stderr held the signed assertion's first
    /// 150 bytes.
    @Test func anEchoedJWTAssertionIsRedacted() async throws {
        let folder = try OpenSSLTool.temporaryFolder("cli-redaction-key")
        defer { try? FileManager.default.removeItem(at: folder) }
        try await OpenSSLTool.makeRSAKey(in: folder)
        let stderr = try await Self.stderr { server in
            (try? String(
                decoding: OpenSSLTool.serviceAccountJSON(in: folder, tokenURI: server.baseURL + "/token-echo"),
                as: UTF8.self)) ?? ""
        }
        #expect(
            stderr
                == "error: unauthenticated: token request to TOKENS/token-echo failed with HTTP 400: invalid_request: "
                + "cannot use grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=<REDACTED>\n")
    }

    /// Firestore echoes the bearer token in its refusal. Before issue 24 stderr read `error: permission-denied:
    /// Bearer ya29.token-1 (token ya29.token-1) may not read ...`.
    @Test func anEchoedBearerTokenIsRedacted() async throws {
        #expect(
            try await Self.stderr { Self.authorizedUser(tokenURI: $0.baseURL + "/token") }
                == "error: permission-denied: Bearer <REDACTED> (token <REDACTED>) may not read "
                + "projects/demo-echo/databases/(default)/documents/echo/doc\n")
    }
}
