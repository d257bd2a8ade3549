import FirestoreREST

/// Why the tool stops: a usage error (exit 2) or a runtime error (exit 1); ``ErrorReport`` words both.
package enum CLIError: Error {
    /// Bad command line: `error: <message>` and where the help is go to stderr; exit 2.
    case usage(String)
    /// A failure while running: `error: <code>: <message>` on stderr; exit 1.
    case runtime(FirestoreError)

    /// Runs `body`, the part of a command that talks to Firestore; whatever it throws becomes a
    /// ``runtime(_:)`` error: a ``FirestoreError`` as it is, a `DecodingError` as `unknown` with its short form
    /// (`fruits/u2: name: expected String, found integerValue`, as ``DocumentDecodingFailure`` prints), any
    /// other error as `unknown` with its description.
    package static func runtimeErrors<T>(_ body: () async throws -> T) async throws(CLIError) -> T {
        do {
            return try await body()
        } catch let error as FirestoreError {
            throw .runtime(error)
        } catch let error as DecodingError {
            throw .runtime(FirestoreError(code: .unknown, message: error.firestoreDecodingDescription))
        } catch {
            throw .runtime(FirestoreError(wrapping: error))
        }
    }
}
