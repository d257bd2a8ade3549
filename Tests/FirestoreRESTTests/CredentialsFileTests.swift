import Foundation
import Testing

@testable import FirestoreREST

/// Reading credentials files and the token endpoint's answers, choosing credentials the ADC way, and keeping
/// secrets out of descriptions, reflection and errors. (Tests that need a real RSA key generate one with the
/// `openssl` tool: see `ServiceAccountJWTTests` in IntegrationTests.)
@Suite("Credentials files and token responses", .timeLimit(.minutes(2)))
struct CredentialsFileTests {
    static let userJSON = #"""
        {"type":"authorized_user","client_id":"123.apps.googleusercontent.com",
         "client_secret":"d-FL95Q19q7MQmFpd7hHD0Ty","refresh_token":"1//0gSECRET-REFRESH",
         "quota_project_id":"billing-project"}
        """#

    // MARK: Files

    @Test func authorizedUserFile() throws {
        let credentials = try AuthorizedUserCredentials(json: Data(Self.userJSON.utf8))
        #expect(credentials.clientID == "123.apps.googleusercontent.com")
        #expect(credentials.quotaProjectID == "billing-project")
        #expect(credentials.tokenURI == "https://oauth2.googleapis.com/token")
    }

    @Test func missingMembersAreNamedWithoutValues() {
        let json = #"{"type":"authorized_user","client_id":"c","client_secret":"s3cr3t-value"}"#
        let error = #expect(throws: FirestoreError.self) {
            try AuthorizedUserCredentials(json: Data(json.utf8), source: "/home/u/adc.json")
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message == #"credentials /home/u/adc.json: "refresh_token" is missing"#)
    }

    @Test func aMemberOfTheWrongTypeIsNamed() {
        let json = #"{"type":"service_account","client_email":42,"private_key":"x"}"#
        let error = #expect(throws: FirestoreError.self) { try ServiceAccountKey(json: Data(json.utf8)) }
        #expect(error?.message == #"credentials service account JSON: "client_email" is a number, not a string"#)
    }

    @Test func aBrokenPrivateKeyNamesOpenSSLsReasonButNotTheKey() {
        let pem =
            "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC-not-base64\\n-----END PRIVATE KEY-----\\n"
        let json = #"{"type":"service_account","client_email":"a@p.iam.gserviceaccount.com","private_key":"\#(pem)"}"#
        let error = #expect(throws: FirestoreError.self) { try ServiceAccountKey(json: Data(json.utf8)) }
        #expect(error?.code == .invalidArgument)
        #expect(
            error?.message.hasPrefix(
                #"credentials service account JSON: "private_key": private key is not a readable PEM private key (error:"#
            )
                == true)
        #expect(error?.message.contains("MIIEvQ") == false)
    }

    @Test func aFileThatIsNotJSONNamesTheOffset() {
        let error = #expect(throws: FirestoreError.self) {
            try ServiceAccountKey(json: Data(#"{"type": service_account}"#.utf8), source: "key.json")
        }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.hasPrefix("credentials key.json is not JSON: ") == true)
        #expect(error?.message.contains("invalid JSON at byte 9") == true)
    }

    @Test func aServiceAccountFileOfAnotherTypeIsRefused() {
        let error = #expect(throws: FirestoreError.self) { try ServiceAccountKey(json: Data(Self.userJSON.utf8)) }
        #expect(
            error?.message == #"credentials service account JSON: type is "authorized_user", not "service_account""#)
    }

    @Test(arguments: ["external_account", "impersonated_service_account", "gdch_service_account"])
    func unsupportedTypesFailClearly(type: String) {
        let json = #"{"type":"\#(type)","audience":"//iam.googleapis.com/x"}"#
        let error = #expect(throws: FirestoreError.self) {
            try ApplicationDefaultCredentials.credentials(json: Data(json.utf8), source: "/etc/creds.json")
        }
        #expect(error?.code == .unimplemented)
        #expect(
            error?.message
                == #"credentials /etc/creds.json: type "\#(type)" is not supported (supported: service_account, authorized_user)"#
        )
    }

    @Test func anUnreadableFileIsAFailedPrecondition() {
        let error = #expect(throws: FirestoreError.self) {
            try ApplicationDefaultCredentials.credentials(contentsOfFile: "/nonexistent/dir/key.json")
        }
        #expect(error?.code == .failedPrecondition)
        #expect(error?.message == "cannot read credentials file /nonexistent/dir/key.json: no such file")
    }

    // MARK: ADC order

    @Test func applicationDefaultCredentialsLookUpTheStandardOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("adc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let gcloud = folder.appendingPathComponent("application_default_credentials.json").path

        // Nothing: the metadata server, at GCE_METADATA_HOST when set.
        let empty = ["HOME": folder.path, "CLOUDSDK_CONFIG": folder.path]
        #expect(
            ApplicationDefaultCredentials.source(environment: empty)
                == .metadataServer(host: "metadata.google.internal"))
        var withHost = empty
        withHost["GCE_METADATA_HOST"] = "127.0.0.1:8999"
        #expect(ApplicationDefaultCredentials.source(environment: withHost) == .metadataServer(host: "127.0.0.1:8999"))
        let metadata = try ApplicationDefaultCredentials.find(environment: withHost)
        #expect((metadata as? MetadataServerCredentials)?.host == "127.0.0.1:8999")

        // The gcloud file beats the metadata server.
        try Data(Self.userJSON.utf8).write(to: URL(fileURLWithPath: gcloud))
        #expect(ApplicationDefaultCredentials.source(environment: withHost) == .gcloudFile(path: gcloud))
        let user = try ApplicationDefaultCredentials.find(environment: withHost)
        #expect((user as? AuthorizedUserCredentials)?.quotaProjectID == "billing-project")

        // GOOGLE_APPLICATION_CREDENTIALS beats both, and a missing file there is an error, not a fall-through.
        var withVariable = withHost
        withVariable["GOOGLE_APPLICATION_CREDENTIALS"] = folder.appendingPathComponent("missing.json").path
        #expect(
            ApplicationDefaultCredentials.source(environment: withVariable)
                == .environmentFile(path: folder.appendingPathComponent("missing.json").path))
        let error = #expect(throws: FirestoreError.self) {
            try ApplicationDefaultCredentials.find(environment: withVariable)
        }
        #expect(error?.code == .failedPrecondition)
    }

    @Test func theGcloudFileIsFoundUnderHOMEWithoutCLOUDSDK_CONFIG() {
        #expect(
            ApplicationDefaultCredentials.gcloudFilePath(environment: ["HOME": "/home/ada"])
                == "/home/ada/.config/gcloud/application_default_credentials.json")
        #expect(
            ApplicationDefaultCredentials.gcloudFilePath(environment: ["HOME": "/home/ada", "CLOUDSDK_CONFIG": "/cfg"])
                == "/cfg/application_default_credentials.json")
        #expect(ApplicationDefaultCredentials.gcloudFilePath(environment: [:]) == nil)
    }

    @Test(
        arguments: [
            (nil, [String: String](), "metadata.google.internal"),
            (nil, ["GCE_METADATA_HOST": "169.254.169.254"], "169.254.169.254"),
            (nil, ["GCE_METADATA_HOST": "http://127.0.0.1:8999/"], "127.0.0.1:8999"),
            (nil, ["GCE_METADATA_HOST": ""], "metadata.google.internal"),
            ("10.0.0.1:80", ["GCE_METADATA_HOST": "169.254.169.254"], "10.0.0.1:80"),
        ] as [(String?, [String: String], String)])
    func metadataHost(explicit: String?, environment: [String: String], expected: String) {
        #expect(MetadataServerCredentials.hostFrom(explicit: explicit, environment: environment) == expected)
    }

    // MARK: Token endpoint answers

    static let issuedAt = Date(timeIntervalSince1970: 1_767_225_600)

    @Test func aTokenResponse() throws {
        let body = #"{"access_token":"ya29.c.b0AXv0","expires_in":3599,"token_type":"Bearer"}"#
        let token = try OAuthTokenEndpoint.decode(
            HTTPResponse(status: 200, body: Data(body.utf8)), endpoint: "https://oauth2.googleapis.com:443/token",
            issuedAt: Self.issuedAt)
        #expect(token.value == "ya29.c.b0AXv0")
        #expect(token.expiresAt == Date(timeIntervalSince1970: 1_767_229_199))
        #expect(token.authorizationHeader == "Bearer ya29.c.b0AXv0")
    }

    @Test func aTokenResponseWithoutExpiryOrType() throws {
        let token = try OAuthTokenEndpoint.decode(
            HTTPResponse(status: 200, body: Data(#"{"access_token":"t"}"#.utf8)), endpoint: "e", issuedAt: Self.issuedAt
        )
        #expect(token.value == "t")
        #expect(token.expiresAt == nil)
    }

    @Test func aRefusedGrantIsUnauthenticatedNamingTheOAuthError() {
        let body = #"{"error":"invalid_grant","error_description":"Invalid JWT Signature."}"#
        let error = #expect(throws: FirestoreError.self) {
            try OAuthTokenEndpoint.decode(
                HTTPResponse(status: 400, body: Data(body.utf8)), endpoint: "https://oauth2.googleapis.com:443/token",
                issuedAt: Self.issuedAt)
        }
        #expect(error?.code == .unauthenticated)
        #expect(
            error?.message
                == "token request to https://oauth2.googleapis.com:443/token failed with HTTP 400: invalid_grant: "
                + "Invalid JWT Signature.")
        #expect(error?.httpStatus == 400)
    }

    @Test func aServerErrorIsUnavailableAndItsBodyIsNotShown() {
        let error = #expect(throws: FirestoreError.self) {
            try OAuthTokenEndpoint.decode(
                HTTPResponse(status: 503, body: Data("<html>assertion=eyJhbGci</html>".utf8)), endpoint: "e",
                issuedAt: Self.issuedAt)
        }
        #expect(error?.code == .unavailable)
        #expect(error?.message == "token request to e failed with HTTP 503")
    }

    @Test(arguments: [
        (#"{"expires_in":3599}"#, "token response from e has no access_token"),
        (#"{"access_token":""}"#, "token response from e has no access_token"),
        ("not json", "token response from e has no access_token"),
        (#"{"access_token":"t","token_type":"mac"}"#, #"token response from e has token_type "mac", not Bearer"#),
    ])
    func unusableTokenResponses(body: String, message: String) {
        let error = #expect(throws: FirestoreError.self) {
            try OAuthTokenEndpoint.decode(
                HTTPResponse(status: 200, body: Data(body.utf8)), endpoint: "e", issuedAt: Self.issuedAt)
        }
        #expect(error?.code == .unauthenticated)
        #expect(error?.message == message)
    }

    @Test func formEncoding() {
        let body = OAuthTokenEndpoint.formEncoded([
            ("grant_type", "urn:ietf:params:oauth:grant-type:jwt-bearer"), ("assertion", "a.b-c_d"),
            ("secret", "x+y/z=&ü "),
        ])
        #expect(
            String(decoding: body, as: UTF8.self)
                == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=a.b-c_d"
                + "&secret=x%2By%2Fz%3D%26%C3%BC%20")
    }

    @Test func base64URLWithoutPadding() {
        #expect(JSONWebToken.base64URL(Data([0xFB, 0xFF])) == "-_8")
        #expect(
            JSONWebToken.base64URL(Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8)) == "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9"
        )
        #expect(JSONWebToken.decodeBase64URL("-_8") == Data([0xFB, 0xFF]))
        #expect(JSONWebToken.decodeBase64URL("e30") == Data("{}".utf8))
    }

    // MARK: Secrets stay out of descriptions

    @Test func secretsAreNeverDescribed() throws {
        let user = try AuthorizedUserCredentials(json: Data(Self.userJSON.utf8))
        let token = AccessToken(value: "ya29.SECRET", expiresAt: Self.issuedAt)
        let fixed = StaticTokenCredentials(token: "ya29.SECRET")
        var texts = [
            String(describing: user), String(reflecting: user), String(describing: token), String(reflecting: token),
            String(describing: fixed), String(reflecting: fixed),
        ]
        for value in [user as Any, token, fixed] {
            var dumped = ""
            dump(value, to: &dumped)
            texts.append(dumped)
        }
        for text in texts {
            #expect(!text.contains("SECRET"), "\(text)")
            #expect(!text.contains("d-FL95Q19q7MQmFpd7hHD0Ty"), "\(text)")
        }
        #expect(String(describing: token) == "AccessToken(<redacted>, expires at 2026-01-01T00:00:00Z)")
        #expect(String(describing: fixed) == "StaticTokenCredentials(token: <redacted>, audience: production)")
        #expect(
            String(describing: user)
                == "AuthorizedUserCredentials(client_id: 123.apps.googleusercontent.com, client_secret: <redacted>, "
                + "refresh_token: <redacted>)")
    }
}
