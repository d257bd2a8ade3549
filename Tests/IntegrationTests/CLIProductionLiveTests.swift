import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The CLI's production path with no emulator named: credentials from `--credentials FILE`, ADC
/// (`GOOGLE_APPLICATION_CREDENTIALS`, gcloud's user file, the metadata server), the project from the command
/// line, the environment, the key or the metadata server, `--database`, over TLS with `--endpoint` and
/// `--ca-bundle`.
///
/// Production is played by ``ProductionStandIn``: nginx on loopback with a throwaway CA's certificate, which
/// refuses every request whose bearer token is not an OAuth access token (`Bearer ya29.`, what the loopback
/// token endpoint and metadata server of ``LoopbackAuthServer`` issue) and passes the rest, REST and the gRPC
/// Listen stream, to the emulator with the emulator's owner token instead. Its access log keeps the token each
/// request came with, so the tests see what the CLI sent.
///
/// The tests run one at a time (`.serialized`): each starts nginx, a Python server and several CLI processes, and
/// the whole suite shares two cores.
@Suite("CLI against a production stand-in", .serialized, .timeLimit(.minutes(3)))
struct CLIProductionLiveTests {
    /// What the CLI's result is compared against: stdout lines with the volatile times removed.
    static func stable(_ result: CLIProcess.Result) throws -> [JSONValue] {
        try result.lines.map(CLILiveTests.stable)
    }

    /// A folder with a service-account key whose `token_uri` is `server`'s `/token` (`key.json`, project
    /// `demo-sa-project`).
    static func keyFolder(_ server: LoopbackAuthServer, label: String) async throws -> URL {
        let folder = try OpenSSLTool.temporaryFolder(label)
        try await OpenSSLTool.makeRSAKey(in: folder)
        try OpenSSLTool.serviceAccountJSON(in: folder, tokenURI: server.baseURL + "/token").write(
            to: folder.appendingPathComponent("key.json"))
        return folder
    }

    /// A key named by `--credentials`: the project comes from the key (said on stderr), every command gets its
    /// token from the token endpoint (the JWT-bearer grant) and sends it over TLS; writes, reads, the Listen
    /// stream and a recursive delete all work, and no request reached the server without a token.
    @Test func aServiceAccountKeyNamedOnTheCommandLine() async throws {
        try await LoopbackAuthServer.with { server in
            let folder = try await Self.keyFolder(server, label: "cli-prod-key")
            defer { try? FileManager.default.removeItem(at: folder) }
            try await ProductionStandIn.with(emulatorHost: EmulatorEnvironment.requireHost()) { standIn in
                let collection = "prod-\(UUID().uuidString.prefix(8).lowercased())"
                let key = folder.appendingPathComponent("key.json").path
                let connection = ["--credentials", key] + standIn.arguments
                let environment = CLIEnvironment.production(home: folder.path)
                func run(_ arguments: [String]) async throws -> CLIProcess.Result {
                    try await CLIProcess(arguments + connection, environment: environment).finish()
                }
                let note =
                    "note: using project \"demo-sa-project\" (the project_id of the service-account key \(key); "
                    + "--project or GOOGLE_CLOUD_PROJECT chooses another)\n"

                let set = try await run(["set", "\(collection)/apple", #"{"name":"Apple","kcal":52}"#])
                #expect(set.status == 0, "\(set.stderr)")
                #expect(set.stderr == note)
                #expect(
                    try Self.stable(set) == [try JSONValue.parse(#"{"id":"apple","path":"\#(collection)/apple"}"#)])
                #expect(set.stdout.contains(#""updateTime":"20"#))

                let get = try await run(["get", "\(collection)/apple"])
                #expect(get.status == 0, "\(get.stderr)")
                #expect(
                    try Self.stable(get) == [
                        try JSONValue.parse(
                            #"{"data":{"kcal":52,"name":"Apple"},"id":"apple","path":"\#(collection)/apple"}"#)
                    ])

                // The Listen stream over TLS (HTTP/2 by ALPN) with the access token: no fallback, no failure.
                let watch = try await run([
                    "watch", collection, "--count", "1", "--format", "jsonl", "--max-failures", "1",
                ])
                #expect(watch.status == 0, "\(watch.stderr)")
                #expect(watch.stderr == note)
                #expect(
                    try Self.stable(watch) == [
                        try JSONValue.parse(
                            #"{"changes":[{"data":{"kcal":52,"name":"Apple"},"id":"apple","newIndex":0,"oldIndex":null,"#
                                + #""path":"\#(collection)/apple","type":"added"}],"size":1}"#)
                    ])

                let delete = try await run(["delete", collection, "--recursive"])
                #expect(delete.status == 0, "\(delete.stderr)")
                #expect(delete.stdout == #"{"deleted":1,"path":"\#(collection)"}"# + "\n")

                // One JWT-bearer grant per process; every request came over HTTP/2 with an access token.
                let forms = try await server.tokenForms()
                #expect(forms.count == 4)
                #expect(forms.allSatisfy { $0["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer" })
                let log = standIn.accessLog()
                // The write and the read went over gRPC (the default protocol, automatic).
                #expect(
                    log.contains(#"POST /google.firestore.v1.Firestore/Commit HTTP/2.0 200 "Bearer ya29.token-1""#),
                    "\(log)")
                #expect(
                    log.contains(#"POST /google.firestore.v1.Firestore/GetDocument HTTP/2.0 200 "Bearer ya29.token-2""#)
                )
                #expect(log.contains(#"POST /google.firestore.v1.Firestore/Listen HTTP/2.0 200 "Bearer ya29.token-3""#))
                #expect(!log.contains(" 401 "), "\(log)")
            }
        }
    }

    /// ADC from `GOOGLE_APPLICATION_CREDENTIALS` with the project from `GOOGLE_CLOUD_PROJECT` (no note: it was
    /// named) and a named database: the document lands in that database and not in `(default)`.
    @Test func applicationDefaultCredentialsAndANamedDatabase() async throws {
        try await LoopbackAuthServer.with { server in
            let folder = try await Self.keyFolder(server, label: "cli-prod-adc")
            defer { try? FileManager.default.removeItem(at: folder) }
            let host = try EmulatorEnvironment.requireHost()
            try await ProductionStandIn.with(emulatorHost: host) { standIn in
                let project = EmulatorEnvironment.uniqueProjectID("cli-prod-adc")
                let environment = CLIEnvironment.production(
                    home: folder.path,
                    [
                        "GOOGLE_APPLICATION_CREDENTIALS": folder.appendingPathComponent("key.json").path,
                        "GOOGLE_CLOUD_PROJECT": project,
                    ])
                let set = try await CLIProcess(
                    ["set", "fruits/fig", #"{"name":"Fig"}"#, "--database", "orchard"] + standIn.arguments,
                    environment: environment
                ).finish()
                #expect(set.status == 0, "\(set.stderr)")
                #expect(set.stderr == "")
                #expect(try Self.stable(set) == [try JSONValue.parse(#"{"id":"fig","path":"fruits/fig"}"#)])
                let orchard = try Firestore.emulator(host: host, projectID: project, databaseID: "orchard")
                #expect(try await orchard.document("fruits/fig").getDocument().data() == ["name": "Fig"])
                let byDefault = try Firestore.emulator(host: host, projectID: project)
                #expect(try await byDefault.document("fruits/fig").getDocument().exists == false)
                #expect(
                    standIn.accessLog().contains(
                        #"POST /google.firestore.v1.Firestore/Commit HTTP/2.0 200 "Bearer ya29.token-1""#
                    ))
            }
        }
    }

    /// gcloud's user file (`authorized_user`, found in `$HOME/.config/gcloud`) names no project: without one the
    /// command is refused before anything is sent; with `--project` it runs on the refresh-token grant.
    @Test func theGcloudUserFileNeedsAProject() async throws {
        try await LoopbackAuthServer.with { server in
            let home = try CLIEnvironment.emptyHome("gcloud-user")
            defer { try? FileManager.default.removeItem(at: home) }
            let gcloud = home.appendingPathComponent(".config/gcloud")
            try FileManager.default.createDirectory(at: gcloud, withIntermediateDirectories: true)
            try Data(
                #"""
                {"type":"authorized_user","client_id":"cli-test.apps.googleusercontent.com","client_secret":"s3cret",
                 "refresh_token":"1//refresh","token_uri":"\#(server.baseURL)/token"}
                """#.utf8
            ).write(to: gcloud.appendingPathComponent("application_default_credentials.json"))
            try await ProductionStandIn.with(emulatorHost: EmulatorEnvironment.requireHost()) { standIn in
                let environment = CLIEnvironment.production(home: home.path)
                let refused = try await CLIProcess(["count", "fruits"] + standIn.arguments, environment: environment)
                    .finish()
                #expect(refused.status == 2)
                #expect(
                    refused.stderr
                        == "error: no project for production Firestore: pass --project ID or set GOOGLE_CLOUD_PROJECT "
                        + "(the credentials name none: AuthorizedUserCredentials(client_id: "
                        + "cli-test.apps.googleusercontent.com, client_secret: <redacted>, refresh_token: <redacted>))\n"
                        + "see 'firestore-feed help count'\n")
                #expect(try await server.tokenForms() == [])

                let project = EmulatorEnvironment.uniqueProjectID("cli-prod-user")
                let counted = try await CLIProcess(
                    ["count", "fruits", "--project", project] + standIn.arguments, environment: environment
                ).finish()
                #expect(counted.status == 0, "\(counted.stderr)")
                #expect(counted.stdout == "0\n")
                #expect(try await server.tokenForms().map { $0["grant_type"] } == ["refresh_token"])
            }
        }
    }

    /// No file anywhere: ADC asks the metadata server (`GCE_METADATA_HOST`) for the token and, with no project
    /// named, for the project, which stderr names.
    @Test func theMetadataServerGivesTheTokenAndTheProject() async throws {
        try await LoopbackAuthServer.with { server in
            let home = try CLIEnvironment.emptyHome("metadata")
            defer { try? FileManager.default.removeItem(at: home) }
            try await ProductionStandIn.with(emulatorHost: EmulatorEnvironment.requireHost()) { standIn in
                let metadataHost = "127.0.0.1:\(server.port)"
                let collection = "metadata-\(UUID().uuidString.prefix(8).lowercased())"
                let added = try await CLIProcess(
                    ["add", collection, #"{"n":1}"#] + standIn.arguments,
                    environment: CLIEnvironment.production(home: home.path, ["GCE_METADATA_HOST": metadataHost])
                ).finish()
                #expect(added.status == 0, "\(added.stderr)")
                #expect(
                    added.stderr
                        == "note: using project \"demo-metadata\" (the metadata server's at \(metadataHost); "
                        + "--project or GOOGLE_CLOUD_PROJECT chooses another)\n")
                let line = try JSONValue.parse(try #require(added.lines.first))
                let id = try #require(line["id"]?.stringValue)
                #expect(id.count == 20)
                #expect(line["path"] == .string("\(collection)/\(id)"))
                let log = try await server.log()
                #expect(log["metadata_requests"]?.arrayValue?.count == 1)
                #expect(
                    standIn.accessLog().contains(
                        #"POST /google.firestore.v1.Firestore/Commit HTTP/2.0 200 "Bearer ya29.token-1""#))
            }
        }
    }

    /// Without `--ca-bundle` the stand-in's certificate is not trusted: TLS verification fails and nothing is
    /// written.
    @Test func theSystemTrustStoreDoesNotTrustTheStandIn() async throws {
        try await LoopbackAuthServer.with { server in
            let folder = try await Self.keyFolder(server, label: "cli-prod-untrusted")
            defer { try? FileManager.default.removeItem(at: folder) }
            try await ProductionStandIn.with(emulatorHost: EmulatorEnvironment.requireHost()) { standIn in
                let result = try await CLIProcess(
                    [
                        "set", "fruits/kiwi", "{}", "--credentials", folder.appendingPathComponent("key.json").path,
                        "--endpoint", standIn.baseURL,
                    ],
                    environment: CLIEnvironment.production(home: folder.path)
                ).finish()
                #expect(result.status == 1)
                #expect(
                    result.stderr.hasSuffix(
                        "error: failed-precondition: TLS certificate verification failed: \(standIn.baseURL)"
                            + "/google.firestore.v1.Firestore/Commit "
                            + "(SSL certificate problem: unable to get local issuer certificate)\n"), "\(result.stderr)"
                )
            }
        }
    }
}

/// Production Firestore played on loopback: nginx with TLS and HTTP/2 (a throwaway CA's certificate for
/// `127.0.0.1`, made by ``LoopbackNginx/makeCertificates(in:)``) in front of the emulator. A request whose
/// `Authorization` is not `Bearer ya29.…` gets 401 `UNAUTHENTICATED`, as production answers a missing or
/// malformed token; the others go to the emulator with `Bearer owner` instead of their token (the emulator
/// refuses tokens that are not JWTs). The access log line of each request is
/// `METHOD URI PROTOCOL STATUS "AUTHORIZATION"`.
enum ProductionStandIn {
    static func locations(emulatorHost: String) -> String {
        let unauthenticated =
            #"{"error":{"code":401,"message":"Request is missing required authentication credential.","#
            + #""status":"UNAUTHENTICATED"}}"#
        return """
                    location /google.firestore.v1.Firestore/ {
                        if ($http_authorization !~ "^Bearer ya29[.]") { return 401; }
                        grpc_set_header Authorization "Bearer owner";
                        grpc_pass grpc://\(emulatorHost);
                        grpc_read_timeout 1h;
                        grpc_send_timeout 1h;
                    }
                    location /v1/ {
                        default_type application/json;
                        if ($http_authorization !~ "^Bearer ya29[.]") { return 401 '\(unauthenticated)'; }
                        proxy_set_header Authorization "Bearer owner";
                        proxy_pass http://\(emulatorHost);
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                    }
            """
    }

    /// Runs `body` with a fresh stand-in, then stops it whether `body` returned or threw.
    static func with(emulatorHost: String, _ body: (LoopbackNginx) async throws -> Void) async throws {
        try await LoopbackNginx.with(
            label: "production-stand-in",
            configuration: { port, folder in
                LoopbackNginx.configuration(
                    port: port, folder: folder,
                    logFormat: #"$request_method $request_uri $server_protocol $status "$http_authorization""#,
                    locations: locations(emulatorHost: emulatorHost))
            }, body)
    }
}

extension LoopbackNginx {
    /// The CLI options that reach it: `--endpoint` and `--ca-bundle`.
    var arguments: [String] { ["--endpoint", baseURL, "--ca-bundle", caBundlePath] }
}
