import FirestoreREST

/// Metadata-server credentials whose "unreachable" errors say what else there is: ADC fell back to the metadata
/// server because no credentials file was found, and off Google Cloud there is none.
struct MetadataHintCredentials: Credentials, CustomStringConvertible {
    let base: MetadataServerCredentials
    let host: String

    init(_ base: MetadataServerCredentials, host: String) {
        self.base = base
        self.host = host
    }

    /// `error` with the hint when it says the metadata server could not be reached.
    static func explained(_ error: FirestoreError, host: String) -> FirestoreError {
        guard error.code == .unavailable || error.code == .deadlineExceeded else { return error }
        return FirestoreError(
            code: error.code,
            message: error.message + " (no credentials file was found, so Application Default Credentials asked "
                + "the metadata server at \(host), which only Google Cloud has: pass --credentials FILE, set "
                + "GOOGLE_APPLICATION_CREDENTIALS, run 'gcloud auth application-default login', or use an "
                + "emulator with --emulator HOST:PORT)", httpStatus: error.httpStatus)
    }

    func authorizationHeader() async throws -> String? {
        do {
            return try await base.authorizationHeader()
        } catch let error as FirestoreError {
            throw Self.explained(error, host: host)
        }
    }

    var audience: CredentialsAudience { base.audience }

    func invalidate(refusedHeader: String) async -> Bool { await base.invalidate(refusedHeader: refusedHeader) }

    var description: String { base.description }
}
