import FirestoreFeedCLI
import Testing

/// Project IDs checked before anything is sent: Google Cloud's rule in production, the emulator's own.
@Suite(.timeLimit(.minutes(2))) struct ProjectIDSyntaxTests {
    static let productionRule =
        "a Firestore project ID is 6 to 30 lower-case letters, digits and hyphens, starting with a letter"
    static let emulatorRule =
        "the emulator takes project IDs of lower-case letters, digits and hyphens, such as demo-fruits"

    @Test(arguments: ["my-app-42", "demo-fruits", "abcdef", "a23456789012345678901234567890", "example.com:my-app"])
    func wellFormedInProduction(id: String) {
        #expect(ProjectIDSyntax.problem(id, source: "--project", production: true) == nil)
    }

    @Test(arguments: ["p", "demo-p", "1abc", "abc-", "a-very-long-demo-project-id-for-the-emulator", "ex.com:app"])
    func wellFormedOnTheEmulator(id: String) {
        #expect(ProjectIDSyntax.problem(id, source: "--project", production: false) == nil)
    }

    @Test(
        arguments: [
            (
                "My_Project", true,
                #"invalid project ID "My_Project" (from --project): \#(productionRule) (did you mean "my-project"?)"#
            ),
            (
                "My_Project", false,
                #"invalid project ID "My_Project" (from --project): \#(emulatorRule) (did you mean "my-project"?)"#
            ),
            ("app", true, #"invalid project ID "app" (from --project): \#(productionRule)"#),
            ("1abcdef", true, #"invalid project ID "1abcdef" (from --project): \#(productionRule)"#),
            (
                "abcdef-", true,
                #"invalid project ID "abcdef-" (from --project): \#(productionRule) (did you mean "abcdef"?)"#
            ),
            (
                "Bad Project!", false,
                #"invalid project ID "Bad Project!" (from --project): \#(emulatorRule) (did you mean "bad-project"?)"#
            ),
            ("a.b", false, #"invalid project ID "a.b" (from --project): \#(emulatorRule) (did you mean "a-b"?)"#),
        ] as [(String, Bool, String)])
    func refused(id: String, production: Bool, message: String) {
        #expect(ProjectIDSyntax.problem(id, source: "--project", production: production) == message)
    }
}
