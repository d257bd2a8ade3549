import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `firestore-feed serve-cassette FILE`: a recorded cassette served over HTTP and replayed by this client
/// over libcurl, as any HTTP client would. No emulator involved.
@Suite(.timeLimit(.minutes(2))) struct ServeCassetteTests {
    static let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Recordings")

    /// Starts the server on a free port and returns it with its `127.0.0.1:PORT`.
    static func serve(_ name: String, _ extra: [String] = []) async throws -> (CLIProcess, String) {
        let server = try CLIProcess(
            ["serve-cassette", recordings.appendingPathComponent(name).path, "--port", "0"] + extra)
        let line = await server.stdout.lines(atLeast: 1, timeout: 30).first ?? ""
        return (server, line.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Stops the server: SIGTERM, then SIGKILL if it is still running after 5 s, so no server outlives the test
    /// (``Foundation/Process/end(grace:)``: nothing waits on the caller's thread).
    static func stop(_ server: CLIProcess) {
        server.process.end()
    }

    /// A recorded transport failure closes the connection without a response; the client's retry then gets the
    /// next recorded answer (`failures.json`: a reset and a timeout before the document).
    @Test func aRecordedFailureClosesTheConnection() async throws {
        let (server, host) = try await Self.serve("failures.json")
        defer { Self.stop(server) }
        let db = try Firestore.emulator(host: host, projectID: "demo-failures", transport: CurlTransport())
        let path = "/v1/projects/demo-failures/databases/(default)/documents/failures/apple"
        for _ in 0..<2 {
            do {
                _ = try await db.document("failures/apple").getDocument()
                Issue.record("a recorded failure must not be answered")
            } catch let error as FirestoreError {
                #expect(error.code == .unavailable)
                #expect(error.httpStatus == nil)
                #expect(
                    error.message.hasPrefix(
                        "server closed the connection without a response: http://\(host)\(path)"))
            }
        }
        #expect(try await db.document("failures/apple").getDocument().data() == ["name": "Apple", "kcal": 52])
    }

    @Test func aCassetteServedOverHTTPReplaysThroughCurlTransport() async throws {
        let (server, host) = try await Self.serve("values.json")
        defer { Self.stop(server) }
        #expect(host.hasPrefix("127.0.0.1:"))
        let db = try Firestore.emulator(host: host, projectID: "demo-values", transport: CurlTransport())
        let fields: [String: FirestoreValue] = [
            "null": .null, "true": .boolean(true), "false": .boolean(false),
            "int64Max": .integer(9_223_372_036_854_775_807), "int64Min": .integer(-9_223_372_036_854_775_808),
            "double": .double(1.5), "big": .double(1e308), "negativeZero": .double(-0.0), "nan": .double(.nan),
            "infinity": .double(.infinity), "negativeInfinity": .double(-.infinity),
            "time": .timestamp(try Timestamp(rfc3339: "2024-05-01T03:04:05.123456Z")),
            "string": .string("héllo \"wörld\" \n ü 🍎"), "bytes": .bytes(Data([0, 1, 2, 255])),
            "reference": .reference("projects/demo-values/databases/(default)/documents/fruits/apple"),
            "geo": .geoPoint(GeoPoint(latitude: 37.5, longitude: -122.25)),
            "emptyArray": .array([]), "emptyMap": .map([:]), "array": .array([1, "two", 3.0, .null]),
            "map": .map(["nested": .map(["deep": .integer(-7)]), "a.b": "dotted key", "1": "digit key"]),
        ]
        try await db.document("types/all").setData([String: FieldValue](fields))
        #expect(try await db.document("types/all").getDocument().data() == fields)
        #expect(try await db.collection("types").getDocuments().documents.map(\.documentID) == ["all"])

        // Played already: strict replay answers 400 FAILED_PRECONDITION, which the client decodes.
        do {
            _ = try await db.document("types/all").getDocument()
            Issue.record("a second GET must not be answered")
        } catch let error as FirestoreError {
            #expect(error.code == .failedPrecondition)
            #expect(error.httpStatus == 400)
            #expect(
                error.message.hasSuffix(
                    "values.json: no unplayed interaction for GET "
                        + "/v1/projects/demo-values/databases/(default)/documents/types/all: interaction 1 matched and was played"
                        + " (allowPlaybackRepeats repeats the last one)"))
        }
    }

    @Test func recordedFailuresAndRepeatsOverHTTP() async throws {
        let (server, host) = try await Self.serve("denied.json", ["--allow-playback-repeats"])
        defer { Self.stop(server) }
        let anonymous = Firestore(
            database: try DatabaseID(projectID: "demo-denied"), baseURL: "http://\(host)/v1/",
            credentials: NoCredentials(), transport: CurlTransport(), isEmulator: true)
        for _ in 0..<3 {
            await #expect(
                throws: FirestoreError(code: .permissionDenied, message: "\nfalse for 'list' @ L7", httpStatus: 403)
            ) {
                _ = try await anonymous.collection("things").getDocuments()
            }
        }
    }
}
