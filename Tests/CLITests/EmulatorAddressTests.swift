import FirestoreFeedCLI
import Testing

/// `--emulator` and `FIRESTORE_EMULATOR_HOST` forms (`EmulatorAddress`): HOST, HOST:PORT, http://HOST:PORT.
@Suite(.timeLimit(.minutes(2))) struct EmulatorAddressTests {
    @Test(arguments: [
        ("localhost", "localhost:8080"),
        ("localhost:9090", "localhost:9090"),
        ("127.0.0.1:8787", "127.0.0.1:8787"),
        ("http://127.0.0.1:8787", "127.0.0.1:8787"),
        ("HTTP://emulator.local:1", "emulator.local:1"),
        ("http://firestore", "firestore:8080"),
        ("[::1]", "[::1]:8080"),
        ("[::1]:8080", "[::1]:8080"),
        ("http://[fe80::1]:65535", "[fe80::1]:65535"),
    ])
    func acceptedForms(text: String, hostAndPort: String) {
        #expect(EmulatorAddress.hostAndPort(text) == hostAndPort)
    }

    @Test(arguments: [
        "", "https://127.0.0.1:8080", "127.0.0.1:", "127.0.0.1:0", "127.0.0.1:65536", "127.0.0.1:99999",
        "127.0.0.1:80a", "http://127.0.0.1:8080/", "127.0.0.1:8080/v1", "user@host:1", "host name:1", "[::1",
        "[]:1", "[::1]8080", "[g::1]:1", "http://", ":8080", "ｈｏｓｔ:1", "host:１２",
    ])
    func refusedForms(text: String) {
        #expect(EmulatorAddress.hostAndPort(text) == nil)
    }
}
