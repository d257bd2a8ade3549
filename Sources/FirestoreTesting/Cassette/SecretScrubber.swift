import FirestoreREST
import Foundation

/// Replaces secrets in recorded interactions with placeholders before a cassette is saved, so bearer
/// tokens, client secrets and token-exchange responses never reach a committed cassette (the test
/// `SecretScrubbingTests.theJWTFlowIsScrubbedBeforeSavingAndTheLiveRunKeepsTheSecrets`).
///
/// What is scrubbed by ``standard``:
/// - the values of the headers in ``headers`` (`Authorization` and friends): `Bearer ya29.x` becomes
///   `Bearer <REDACTED>` (the scheme word stays, so a reader sees that a token was sent);
/// - the values of the query parameters in ``queryParameters`` (`key=`, `access_token=`);
/// - the values of the fields in ``bodyFields`` in JSON bodies (at any depth) and in form-encoded bodies:
///   the OAuth token request's `assertion`, `client_secret`, `refresh_token` and the token response's
///   `access_token`, `id_token`;
/// - every other occurrence, anywhere in the cassette (paths, headers, bodies, other interactions), of a
///   secret found in those places, when it is at least 8 bytes long; so a token
///   from a token response is also removed from a later request that carries it elsewhere;
/// - the strings in ``literals``, anywhere.
///
/// Listen sessions (``Cassette/ListenSession``) are scrubbed the same way: their metadata like headers, their
/// proto3 JSON messages like JSON bodies; ``filters`` see only HTTP interactions.
///
/// Bodies stay verbatim apart from the replaced text. A JSON body in which a secret survives textual
/// replacement (because the server escaped it) is rewritten canonically with the fields replaced, so a secret
/// never reaches the disk. The live run is unaffected: scrubbing works on copies.
public struct SecretScrubber: Sendable {
    /// The text that takes a secret's place (the library's own, so an error message and a cassette read alike).
    public static let placeholder = Redaction.placeholder

    /// Secrets shorter than this many bytes are replaced where they were found but not searched for
    /// elsewhere, so that a short value (the emulator's `Bearer owner`) cannot blank out ordinary text.
    package static let minimumPropagatedLength = 8

    /// Header names (any case) whose values are secrets.
    public var headers: Set<String>
    /// Query parameter names whose values are secrets.
    public var queryParameters: Set<String>
    /// JSON member names and form field names whose values are secrets.
    public var bodyFields: Set<String>
    /// Exact strings to replace wherever they occur (at least 1 byte each; empty strings are ignored).
    public var literals: [String]
    /// Extra filters, run on every interaction after the built-in scrubbing, in order.
    public var filters: [@Sendable (inout Cassette.Interaction) -> Void]

    /// A scrubber with every list given; see ``standard`` for the defaults.
    public init(
        headers: Set<String> = Self.standardHeaders, queryParameters: Set<String> = Self.standardQueryParameters,
        bodyFields: Set<String> = Self.standardBodyFields, literals: [String] = [],
        filters: [@Sendable (inout Cassette.Interaction) -> Void] = []
    ) {
        self.headers = Set(headers.map { $0.lowercased() })
        self.queryParameters = queryParameters
        self.bodyFields = bodyFields
        self.literals = literals
        self.filters = filters
    }

    /// `authorization`, `proxy-authorization`, `x-goog-api-key`, `x-firebase-appcheck`, `cookie`, `set-cookie`: the
    /// library's own list, which its error messages are redacted with too.
    public static let standardHeaders: Set<String> = CredentialNames.standard.headers
    /// `key`, `access_token`.
    public static let standardQueryParameters: Set<String> = CredentialNames.standard.queryParameters
    /// `assertion`, `client_secret`, `refresh_token`, `access_token`, `id_token`, `private_key`, `password`.
    public static let standardBodyFields: Set<String> = CredentialNames.standard.fields

    /// The names this scrubber looks for, in the library's form.
    var names: CredentialNames {
        CredentialNames(headers: headers, queryParameters: queryParameters, fields: bodyFields)
    }

    /// The default scrubber, described on ``SecretScrubber``.
    public static let standard = SecretScrubber()

    /// A scrubber that removes nothing (for recording data that is known to hold no secrets).
    public static let none = SecretScrubber(headers: [], queryParameters: [], bodyFields: [])

    /// `cassette` with every secret replaced; see ``SecretScrubber``.
    /// - Complexity: O(n · s) for a cassette of n bytes and s distinct secrets.
    public func scrub(_ cassette: Cassette) -> Cassette {
        var found: Set<String> = []
        for interaction in cassette.interactions { found.formUnion(secrets(in: interaction)) }
        for session in cassette.listenSessions { found.formUnion(secrets(in: session)) }
        let everywhere = propagated(found)
        return Cassette(
            interactions: cassette.interactions.map { scrub($0, also: everywhere) },
            listenSessions: cassette.listenSessions.map { scrub($0, also: everywhere) })
    }

    /// One interaction scrubbed on its own (the secrets it holds, and ``literals``).
    public func scrub(_ interaction: Cassette.Interaction) -> Cassette.Interaction {
        scrub(interaction, also: propagated(secrets(in: interaction)))
    }

    /// A request in the form it would have in a scrubbed cassette, for matching a live request against
    /// recorded ones.
    public func scrub(_ request: Cassette.Request) -> Cassette.Request {
        let placeholder = Cassette.Response(status: 0)
        return scrub(Cassette.Interaction(request: request, response: placeholder)).request
    }

    // MARK: - Finding secrets

    /// The secret values in the listed headers, query parameters and body fields of `interaction`
    /// (`CredentialNames.values(headers:query:body:)`).
    func secrets(in interaction: Cassette.Interaction) -> Set<String> {
        let names = self.names
        var found = names.values(
            headers: interaction.request.headers.map { ($0.name, $0.value) }, query: interaction.request.query[...],
            body: interaction.request.body)
        found.formUnion(
            names.values(
                headers: interaction.response.headers.map { ($0.name, $0.value) }, query: "",
                body: interaction.response.body))
        found.remove(Self.placeholder)
        return found
    }

    func collect(_ json: JSONValue, into found: inout Set<String>) {
        found.formUnion(names.fieldValues(in: json))
    }

    /// The found secrets long enough to search for everywhere, plus ``literals``; longest first, so that a
    /// secret containing another is replaced whole.
    func propagated(_ found: Set<String>) -> [String] {
        var all = Set(found.filter { $0.utf8.count >= Self.minimumPropagatedLength })
        all.formUnion(literals.filter { !$0.isEmpty })
        all.remove(Self.placeholder)
        return all.sorted { ($0.utf8.count, $0) > ($1.utf8.count, $1) }
    }

    // MARK: - Replacing

    func scrub(_ interaction: Cassette.Interaction, also everywhere: [String]) -> Cassette.Interaction {
        var result = interaction
        result.request.headers = scrubHeaders(result.request.headers, everywhere)
        result.response.headers = scrubHeaders(result.response.headers, everywhere)
        result.request.path = scrubPath(result.request.path, everywhere)
        if let body = result.request.body { result.request.body = scrubBody(body, everywhere) }
        result.response.body = scrubBody(result.response.body, everywhere)
        if let message = result.failure?.message { result.failure?.message = Self.replace(everywhere, in: message) }
        for filter in filters { filter(&result) }
        return result
    }

    func scrubHeaders(_ list: [HTTPHeader], _ everywhere: [String]) -> [HTTPHeader] {
        list.map { header in
            guard headers.contains(header.name.lowercased()) else {
                return HTTPHeader(header.name, Self.replace(everywhere, in: header.value))
            }
            let (scheme, credential) = CredentialNames.splitScheme(header.value)
            if credential.isEmpty { return header }
            return HTTPHeader(header.name, scheme.isEmpty ? Self.placeholder : scheme + " " + Self.placeholder)
        }
    }

    func scrubPath(_ path: String, _ everywhere: [String]) -> String {
        var text = path
        if let question = path.firstIndex(of: "?"), !queryParameters.isEmpty {
            let items = path[path.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false)
            let scrubbed = items.map { item -> String in
                let (name, value) = CredentialNames.splitPair(item)
                return queryParameters.contains(name) && !value.isEmpty ? name + "=" + Self.placeholder : String(item)
            }
            text = String(path[...question]) + scrubbed.joined(separator: "&")
        }
        return Self.replace(everywhere, in: text)
    }

    func scrubBody(_ body: Data, _ everywhere: [String]) -> Data {
        guard !body.isEmpty else { return body }
        if let json = try? JSONValue.parse(body) {
            var local: Set<String> = []
            collect(json, into: &local)
            let secrets = Array(local) + everywhere
            guard !secrets.isEmpty, let text = String(data: body, encoding: .utf8) else { return body }
            let replaced = Data(Self.replaceJSON(secrets.sorted { $0.utf8.count > $1.utf8.count }, in: text).utf8)
            // Escapes the textual replacement could not see (`\u0061` for `a`) are caught here.
            if let check = try? JSONValue.parse(replaced), !holdsSecret(check, secrets) { return replaced }
            return redacted(json, secrets).serialized()
        }
        if let pairs = CredentialNames.formPairs(body),
            pairs.contains(where: { bodyFields.contains(CredentialNames.decodedName($0.0)) })
        {
            let scrubbed = pairs.map { name, value in
                bodyFields.contains(CredentialNames.decodedName(name)) && !value.isEmpty
                    ? name + "=" + Self.placeholder : name + "=" + value
            }
            return Data(Self.replace(everywhere, in: scrubbed.joined(separator: "&")).utf8)
        }
        guard !everywhere.isEmpty, let text = String(data: body, encoding: .utf8) else { return body }
        return Data(Self.replace(everywhere, in: text).utf8)
    }

    /// Whether a listed field holds anything but the placeholder, or any string still contains a secret.
    func holdsSecret(_ json: JSONValue, _ secrets: [String]) -> Bool {
        switch json {
        case .object(let members):
            for (key, value) in members {
                if bodyFields.contains(key), case .string(let text) = value, !text.isEmpty, text != Self.placeholder {
                    return true
                }
                if key != Self.replace(secrets, in: key) || holdsSecret(value, secrets) { return true }
            }
            return false
        case .array(let elements):
            return elements.contains { holdsSecret($0, secrets) }
        case .string(let text):
            return text != Self.replace(secrets, in: text)
        default:
            return false
        }
    }

    /// `json` with listed fields set to the placeholder and secrets replaced inside every string.
    func redacted(_ json: JSONValue, _ secrets: [String]) -> JSONValue {
        switch json {
        case .object(let members):
            var result: [String: JSONValue] = [:]
            for (key, value) in members {
                let name = Self.replace(secrets, in: key)
                if bodyFields.contains(key), case .string(let text) = value, !text.isEmpty {
                    result[name] = .string(Self.placeholder)
                } else {
                    result[name] = redacted(value, secrets)
                }
            }
            return .object(result)
        case .array(let elements):
            return .array(elements.map { redacted($0, secrets) })
        case .string(let text):
            return .string(Self.replace(secrets, in: text))
        default:
            return json
        }
    }

    // MARK: - Text helpers

    static func replace(_ secrets: [String], in text: String) -> String {
        var result = text
        for secret in secrets where !secret.isEmpty && result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: placeholder)
        }
        return result
    }

    /// Replaces each secret as it appears in JSON text: raw, and with `/` escaped as `\/` (which JSON allows,
    /// RFC 8259 §7, and the emulator writes).
    static func replaceJSON(_ secrets: [String], in text: String) -> String {
        var result = text
        for secret in secrets where !secret.isEmpty {
            var bytes: [UInt8] = []
            JSONValue.writeString(secret, to: &bytes)
            let escaped = String(decoding: bytes.dropFirst().dropLast(), as: UTF8.self)
            let forms = [escaped, secret, escaped.replacingOccurrences(of: "/", with: "\\/")]
            for form in Set(forms) where result.contains(form) {
                result = result.replacingOccurrences(of: form, with: placeholder)
            }
        }
        return result
    }
}
