import FirestoreFeedCLI
import FirestoreREST
import Testing

/// The hints and notes the CLI adds to an error of the Firestore connection, and none to another service's (a new
/// user's report: `publish` with the Pub/Sub emulator down was told to start the Firestore emulator, which ran).
@Suite(.timeLimit(.minutes(1))) struct ConnectionHintTests {
    static let described = ConnectionContext.Described(
        project: "demo-x", database: "(default)", emulatorHost: "127.0.0.1:8080",
        place: "on the emulator at 127.0.0.1:8080")

    static func hint(_ code: FirestoreError.Code, _ message: String, serverStatus: Bool = false) -> String? {
        var error = FirestoreError(code: code, message: message, httpStatus: serverStatus ? 404 : nil)
        error.isServerStatus = serverStatus
        return ConnectionContext.hint(for: error, in: described)
    }

    @Test func aRefusedConnectionToTheEmulatorSaysHowToStartIt() {
        let hint = Self.hint(
            .unavailable, "could not connect: http://127.0.0.1:8080/v1/projects/demo-x (Couldn't connect to server)")
        #expect(hint?.hasPrefix("hint: nothing listens at 127.0.0.1:8080: start the emulator there") == true)
    }

    @Test func aRefusedConnectionToAnotherHostOrServiceGetsNoFirestoreHint() {
        #expect(
            Self.hint(.unavailable, "could not connect: http://127.0.0.1:1/v1/x (Couldn't connect to server)") == nil)
        #expect(
            Self.hint(
                .unavailable,
                "Pub/Sub publish to projects/p/topics/t: could not connect: http://127.0.0.1:8080/google.pubsub.v1."
                    + "Publisher/Publish (Couldn't connect to server)") == nil)
    }

    @Test func aServersNotFoundNamesTheProjectButNotForPubSub() {
        #expect(
            Self.hint(.notFound, "no such document", serverStatus: true)
                == #"note: in project "demo-x", database (default), on the emulator at 127.0.0.1:8080"#)
        #expect(
            Self.hint(.notFound, "Pub/Sub publish to projects/p/topics/t: Topic not found", serverStatus: true) == nil)
    }
}
