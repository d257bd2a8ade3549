extension Firestore {
    /// Fetches every page of a paged list method, following `nextPageToken` until the server sends none
    /// (`ListCollectionIdsTests.followsPageTokensAtTheRootAndBelowADocument`), and decodes the elements of member
    /// `listKey` of each page.
    ///
    /// - Parameters:
    ///   - what: names the call in error messages, e.g. `list fruits`.
    ///   - listKey: the member holding the page's elements (`documents`, `collectionIds`); absent means none.
    ///   - fetch: sends one request for a page token (`nil` for the first page) and returns the page.
    ///   - decode: decodes one element.
    /// - Throws: the errors of `fetch` and `decode`, or `.internal` when `listKey` is not an array,
    ///   `nextPageToken` is not a string, or the server repeats a page token (which would loop forever).
    func collectPages<Element>(
        _ what: String, listKey: String, fetch: (String?) async throws -> JSONValue,
        decode: (JSONValue, Int) throws -> Element
    ) async throws -> [Element] {
        var elements: [Element] = []
        var pageToken: String?
        var seenTokens: Set<String> = []
        repeat {
            let page = try await fetch(pageToken)
            switch page[listKey] {
            case nil: break
            case .array(let items)?:
                for (position, item) in items.enumerated() { elements.append(try decode(item, position)) }
            case let other?:
                throw FirestoreError(
                    code: .internal, message: "\(what): \(listKey) is a \(other.typeName), not an array")
            }
            switch page["nextPageToken"] {
            case nil, .string("")?: pageToken = nil
            case .string(let token)?:
                guard seenTokens.insert(token).inserted else {
                    throw FirestoreError(code: .internal, message: "\(what): the server repeated page token \(token)")
                }
                pageToken = token
            case let other?:
                throw FirestoreError(code: .internal, message: "\(what): nextPageToken is a \(other.typeName)")
            }
        } while pageToken != nil
        return elements
    }
}
