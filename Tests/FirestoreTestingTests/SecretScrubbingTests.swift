import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST
@testable import FirestoreTesting

/// Field case F-33: credentials never reach a saved cassette, the live run still uses them, and replay still
/// matches.
@Suite(.timeLimit(.minutes(2))) struct SecretScrubbingTests {
    static let assertion = "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJzYUBwLmlhbSJ9.c2lnbmF0dXJlLWJ5dGVz"
    static let tokenBody = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)"
    static let documentURL = "https://firestore.googleapis.com/v1/projects/p/databases/(default)/documents/c/d"

    /// The token server and Firestore, as one scripted transport.
    static func server() -> ScriptedTransport {
        ScriptedTransport { request, _ in
            if request.url.hasPrefix("https://oauth2.googleapis.com/token") {
                return HTTPResponse(
                    status: 200, headers: [HTTPHeader("Content-Type", "application/json; charset=utf-8")],
                    body: Data(#"{"access_token":"ya29.SECRET","expires_in":3599,"token_type":"Bearer"}"#.utf8))
            }
            return HTTPResponse(
                status: 200, headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Date", "today")],
                body: Data(
                    #"{"name":"projects/p/databases/(default)/documents/c/d","fields":{},"createTime":"2024-05-01T00:00:00Z","updateTime":"2024-05-01T00:00:00Z"}"#
                        .utf8))
        }
    }

    /// The JWT-bearer session: token exchange, then a Firestore read with the token.
    static func session(_ transport: any HTTPTransport) async throws -> (token: HTTPResponse, document: HTTPResponse) {
        let token = try await transport.send(
            HTTPRequest(
                method: "POST", url: "https://oauth2.googleapis.com/token",
                headers: [HTTPHeader("Content-Type", "application/x-www-form-urlencoded")], body: Data(tokenBody.utf8)))
        let document = try await transport.send(
            HTTPRequest(
                method: "GET", url: documentURL + "?key=AIzaSyREAL-api-key-123",
                headers: [HTTPHeader("Authorization", "Bearer ya29.SECRET"), HTTPHeader("User-Agent", "test")]))
        return (token, document)
    }

    @Test func theJWTFlowIsScrubbedBeforeSavingAndTheLiveRunKeepsTheSecrets() async throws {
        let path = NSTemporaryDirectory() + "f33-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let recorder = RecordingTransport(wrapping: Self.server(), savingTo: path)
        let live = try await Self.session(recorder)
        #expect(String(decoding: live.token.body, as: UTF8.self).contains("ya29.SECRET"))

        let saved = try String(contentsOfFile: path, encoding: .utf8)
        #expect(!saved.contains("ya29"))
        #expect(!saved.contains("eyJ"))
        #expect(!saved.contains("AIzaSy"))
        let cassette = try Cassette(contentsOfFile: path)
        let (token, document) = (cassette.interactions[0], cassette.interactions[1])
        #expect(
            token.request.body
                == Data(
                    "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=<REDACTED>".utf8))
        #expect(
            token.response.body == Data(#"{"access_token":"<REDACTED>","expires_in":3599,"token_type":"Bearer"}"#.utf8))
        #expect(token.request.headers == [HTTPHeader("content-type", "application/x-www-form-urlencoded")])
        #expect(token.response.headers == [HTTPHeader("content-type", "application/json; charset=utf-8")])
        #expect(document.request.path == "/v1/projects/p/databases/(default)/documents/c/d?key=<REDACTED>")
        #expect(document.request.headers == [HTTPHeader("authorization", "Bearer <REDACTED>")])
        #expect(document.response.headers == [HTTPHeader("content-type", "application/json")])
        #expect(recorder.cassette == cassette)
    }

    @Test func theScrubbedCassetteReplaysTheLiveSessionWithRealSecrets() async throws {
        let recorder = RecordingTransport(wrapping: Self.server())
        let live = try await Self.session(recorder)
        let replay = ReplayTransport(cassette: recorder.cassette)
        let replayed = try await Self.session(replay)
        #expect(replayed.document.body == live.document.body)
        #expect(replayed.token.status == 200)
        #expect(replay.unplayedIndices == [])
    }

    @Test func aTokenFoundInOneInteractionIsRemovedEverywhere() {
        let cassette = Cassette(interactions: [
            Cassette.Interaction(
                request: Cassette.Request(
                    method: "POST", path: "/token",
                    body: Data("refresh_token=1%2F%2Frefresh-abc&client_secret=GOCSPX-xyz123".utf8)),
                response: Cassette.Response(
                    status: 200, body: Data(#"{"id_token":"eyJ.id.token","access_token":"ya29.a0AfB_long"}"#.utf8))),
            Cassette.Interaction(
                request: Cassette.Request(method: "GET", path: "/echo?note=ya29.a0AfB_long"),
                response: Cassette.Response(status: 200, body: Data("you sent ya29.a0AfB_long and GOCSPX-xyz123".utf8))),
        ])
        let scrubbed = SecretScrubber.standard.scrub(cassette)
        #expect(scrubbed.interactions[0].request.body == Data("refresh_token=<REDACTED>&client_secret=<REDACTED>".utf8))
        #expect(
            scrubbed.interactions[0].response.body
                == Data(#"{"id_token":"<REDACTED>","access_token":"<REDACTED>"}"#.utf8))
        #expect(scrubbed.interactions[1].request.path == "/echo?note=<REDACTED>")
        #expect(scrubbed.interactions[1].response.body == Data("you sent <REDACTED> and <REDACTED>".utf8))
    }

    @Test func aSecretTheServerEscapedIsStillRemoved() {
        // The emulator writes `/` as `\/`; `\u0079` is a `y`: textual replacement cannot see this one.
        let body = #"{"access_token":"ya29.with\/slash","id_token":"\u0079a29.escaped-letter","n":1}"#
        let cassette = Cassette(interactions: [
            Cassette.Interaction(
                request: Cassette.Request(method: "POST", path: "/token"),
                response: Cassette.Response(status: 200, body: Data(body.utf8)))
        ])
        let scrubbed = SecretScrubber.standard.scrub(cassette).interactions[0].response.body
        #expect(scrubbed == Data(#"{"access_token":"<REDACTED>","id_token":"<REDACTED>","n":1}"#.utf8))
    }

    @Test func shortSecretsAreReplacedInPlaceOnlyAndExtraFiltersRun() {
        let cassette = Cassette(interactions: [
            Cassette.Interaction(
                request: Cassette.Request(
                    method: "GET", path: "/owner/doc", headers: [HTTPHeader("authorization", "Bearer owner")]),
                response: Cassette.Response(status: 200, body: Data(#"{"owner":"me","internal":"project-42"}"#.utf8)))
        ])
        var scrubber = SecretScrubber.standard
        scrubber.literals = ["project-42"]
        scrubber.filters = [{ interaction in interaction.response.headers.append(HTTPHeader("x-filtered", "yes")) }]
        let scrubbed = scrubber.scrub(cassette).interactions[0]
        #expect(scrubbed.request.path == "/owner/doc")
        #expect(scrubbed.request.headers == [HTTPHeader("authorization", "Bearer <REDACTED>")])
        #expect(scrubbed.response.body == Data(#"{"owner":"me","internal":"<REDACTED>"}"#.utf8))
        #expect(scrubbed.response.headers == [HTTPHeader("x-filtered", "yes")])
    }

    @Test func documentFieldsNamedLikeSecretsAreData() {
        // A Firestore field called "password" holds a Value object, not a string: it is document data.
        let body = #"{"fields":{"password":{"stringValue":"not-a-credential"}}}"#
        let cassette = Cassette(interactions: [
            Cassette.Interaction(
                request: Cassette.Request(method: "PATCH", path: "/d", body: Data(body.utf8)),
                response: Cassette.Response(status: 200, body: Data(body.utf8)))
        ])
        let scrubbed = SecretScrubber.standard.scrub(cassette).interactions[0]
        #expect(scrubbed.request.body == Data(body.utf8))
        #expect(scrubbed.response.body == Data(body.utf8))
    }

    @Test func theLibrarysOwnRefreshTokenFlowLeavesNoSecretInTheCassette() async throws {
        let userJSON = #"""
            {"type":"authorized_user","client_id":"123.apps.googleusercontent.com",
             "client_secret":"d-FL95Q19q7MQmFpd7hHD0Ty","refresh_token":"1//0gSECRET-REFRESH"}
            """#
        let recorder = RecordingTransport(wrapping: Self.server())
        let credentials = try AuthorizedUserCredentials(json: Data(userJSON.utf8), transport: recorder)
        let db = try Firestore(projectID: "p", credentials: credentials, transport: recorder, retryPolicy: .none)
        #expect(try await db.document("c/d").getDocument().exists)
        #expect(try await credentials.authorizationHeader() == "Bearer ya29.SECRET")  // the live run has it

        let text = String(decoding: recorder.cassette.jsonData(), as: UTF8.self)
        for secret in ["ya29", "d-FL95Q19q7MQmFpd7hHD0Ty", "0gSECRET-REFRESH"] {
            #expect(!text.contains(secret), "the cassette holds \(secret)")
        }
        #expect(
            recorder.cassette.interactions.map { $0.request.method + " " + $0.request.path } == [
                "POST /token", "GET /v1/projects/p/databases/(default)/documents/c/d",
            ])
        #expect(
            recorder.cassette.interactions[0].request.body
                == Data(
                    "grant_type=refresh_token&client_id=123.apps.googleusercontent.com&client_secret=<REDACTED>&refresh_token=<REDACTED>"
                        .utf8))

        // The same code replays from the scrubbed cassette with its real secrets.
        let replay = ReplayTransport(cassette: recorder.cassette)
        let again = try AuthorizedUserCredentials(json: Data(userJSON.utf8), transport: replay)
        let offline = try Firestore(projectID: "p", credentials: again, transport: replay, retryPolicy: .none)
        #expect(try await offline.document("c/d").getDocument().exists)
        #expect(replay.unplayedIndices == [])
    }
}
