import FirestoreREST

/// Why the tool stops: a usage error (exit 2, help printed) or a runtime error (exit 1).
enum CLIError: Error {
    /// Bad command line: the message, then the command's help, go to stderr; exit 2.
    case usage(String, help: String)
    /// A failure while running: `error: <code>: <message>` on stderr; exit 1.
    case runtime(FirestoreError)
}
