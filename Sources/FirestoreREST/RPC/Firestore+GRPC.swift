import FirestoreWire

extension Firestore {
    /// The gRPC server of this client: ``baseURL`` without its `/v1/` path, e.g. `http://127.0.0.1:8080` for the
    /// emulator (which serves gRPC on its REST port) or `https://firestore.googleapis.com`.
    package var grpcBaseURL: String {
        var root = baseURL
        if root.hasSuffix("/v1/") { root.removeLast(4) }
        while root.hasSuffix("/") { root.removeLast() }
        return root
    }

    /// A channel to ``grpcBaseURL``.
    /// - Parameter configuration: TLS, proxy and buffering settings; build it from a ``CurlTransport``'s with
    ///   ``GRPCChannel/Configuration/init(_:)`` to reach the server the way the REST requests do.
    /// - Throws: ``FirestoreError`` `.unknown` when libcurl cannot be initialised.
    package func makeGRPCChannel(configuration: GRPCChannel.Configuration = .init()) throws(FirestoreError)
        -> GRPCChannel
    {
        try GRPCChannel(baseURL: grpcBaseURL, configuration: configuration)
    }

    /// The request metadata of every Firestore gRPC call of this client:
    /// - `authorization`: this client's credentials, checked exactly as for REST requests (the emulator's owner
    ///   token only to an emulator, real credentials never to one and never over plain `http` to a remote
    ///   host);
    /// - `x-goog-user-project` when the credentials name a quota project;
    /// - `google-cloud-resource-prefix: projects/{p}/databases/{d}`: required, the emulator answers
    ///   `grpc-status` 2 at once without it (the Firebase SDKs send it: firebase-ios-sdk
    ///   `Firestore/core/src/remote/grpc_connection.cc`);
    /// - `x-goog-request-params: project_id={p}&database_id={d}`, query-escaped: the routing header Google's Go
    ///   client sends to reach named databases (googleapis/google-cloud-go `firestore/client.go`,
    ///   `reqParamsHeaderVal`).
    ///
    /// Tokens expire, so fetch the metadata again for each new call.
    /// - Throws: ``FirestoreError`` `.failedPrecondition` when the credentials may not go to this server; the
    ///   credentials' own error (e.g. `.unauthenticated` when a token grant is refused).
    package func grpcMetadata() async throws -> [HTTPHeader] {
        var headers = [
            HTTPHeader("google-cloud-resource-prefix", database.name),
            HTTPHeader(
                "x-goog-request-params",
                "project_id=\(Self.queryEscaped(database.projectID))&database_id=\(Self.queryEscaped(database.databaseID))"
            ),
        ]
        if let authorization = try await authorizationHeader(for: grpcBaseURL + "/") {
            headers.append(HTTPHeader("authorization", authorization))
        }
        if let quotaProject = credentials.quotaProjectID {
            headers.append(HTTPHeader("x-goog-user-project", quotaProject))
        }
        return headers
    }

    /// `text` with every byte other than ASCII letters, digits, `-`, `_`, `.` and `~` written as `%XX`
    /// (upper-case hex), as Go's `url.QueryEscape` does for these IDs.
    package static func queryEscaped(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var output: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                UInt8(ascii: "~"):
                output.append(byte)
            default:
                output += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
