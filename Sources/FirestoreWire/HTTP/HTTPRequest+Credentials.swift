extension HTTPRequest {
    /// The credentials this request carries (``CredentialNames/standard``: its `Authorization` token, an API key in
    /// the query, the assertion, refresh token or client secret of a token request's form), for replacing them in
    /// any message about its answer (``FirestoreError/redacting(known:)``).
    /// - Complexity: O(n) in the request's size.
    package var credentialValues: Set<String> {
        let query = url.firstIndex(of: "?").map { url[url.index(after: $0)...].prefix { $0 != "#" } } ?? ""
        return CredentialNames.standard.values(
            headers: headers.map { ($0.name, $0.value) }, query: query, body: body)
    }
}
