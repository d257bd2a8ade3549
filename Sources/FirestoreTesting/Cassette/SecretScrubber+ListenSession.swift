import FirestoreREST
import Foundation

extension SecretScrubber {
    /// One Listen session scrubbed on its own: the values of the headers in ``headers`` in its metadata
    /// (`authorization: Bearer <REDACTED>`), the fields in ``bodyFields`` in its messages, and every other
    /// occurrence of those secrets and of ``literals`` in any string of the session.
    /// - Complexity: O(n · s) for a session of n bytes and s secrets.
    public func scrub(_ session: Cassette.ListenSession) -> Cassette.ListenSession {
        scrub(session, also: propagated(secrets(in: session)))
    }

    /// A message as it would be in a scrubbed cassette, for matching a sent request against recorded ones.
    func scrub(message json: JSONValue) -> JSONValue {
        var found: Set<String> = []
        collect(json, into: &found)
        found.remove(Self.placeholder)
        return redacted(json, Array(found) + propagated(found))
    }

    /// The secret values in the listed headers of the metadata and the listed fields of the messages.
    func secrets(in session: Cassette.ListenSession) -> Set<String> {
        var found: Set<String> = []
        for header in session.metadata where headers.contains(header.name.lowercased()) {
            let (_, credential) = CredentialNames.splitScheme(header.value)
            if !credential.isEmpty { found.insert(credential) }
        }
        for message in session.messages { collect(message.body, into: &found) }
        found.remove(Self.placeholder)
        return found
    }

    func scrub(_ session: Cassette.ListenSession, also everywhere: [String]) -> Cassette.ListenSession {
        var result = session
        result.metadata = scrubHeaders(session.metadata, everywhere)
        result.method = Self.replace(everywhere, in: session.method)
        result.messages = session.messages.map { message in
            var scrubbed = message
            scrubbed.body = redacted(message.body, everywhere)
            return scrubbed
        }
        if case .failed(let code, let text)? = session.end {
            result.end = .failed(code: code, message: Self.replace(everywhere, in: text))
        }
        return result
    }
}
