import FirestoreWire

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
        try await collectDecodedPages(what) { token in
            let page = try await fetch(token)
            let elements = try Self.pageElements(page, what: what, listKey: listKey).enumerated().map {
                position, item in
                try decode(item, position)
            }
            return (elements, try Self.nextPageToken(of: page, what: what))
        }
    }

    /// The elements of member `listKey` of one page; none when the member is absent (the server leaves an
    /// empty list out).
    /// - Throws: ``FirestoreError`` `.internal` when the member is not an array.
    static func pageElements(_ page: JSONValue, what: String, listKey: String) throws(FirestoreError) -> [JSONValue] {
        switch page[listKey] {
        case nil: return []
        case .array(let items)?: return items
        case let other?:
            let article = ["array", "object"].contains(other.typeName) ? "an" : "a"
            throw FirestoreError(
                code: .internal, message: "\(what): \(listKey) is \(article) \(other.typeName), not an array")
        }
    }

    /// The page's `nextPageToken`, or `nil` when absent or empty (the last page).
    /// - Throws: ``FirestoreError`` `.internal` when it is not a string.
    static func nextPageToken(of page: JSONValue, what: String) throws(FirestoreError) -> String? {
        switch page["nextPageToken"] {
        case nil, .string("")?: return nil
        case .string(let token)?: return token
        case let other?:
            throw FirestoreError(code: .internal, message: "\(what): nextPageToken is a \(other.typeName)")
        }
    }

    /// Fetches every page of a paged list method whose pages come decoded (over either wire), following the next
    /// page token until the server sends none.
    /// - Parameters:
    ///   - what: names the call in error messages, e.g. `list fruits`.
    ///   - fetch: sends one request for a page token (`nil` for the first page) and returns the page's elements and
    ///     its next page token (`nil` on the last page).
    /// - Throws: the errors of `fetch`, or `.internal` when the server repeats a page token (which would loop
    ///   forever).
    /// - Complexity: one request per page.
    func collectDecodedPages<Element>(
        _ what: String, fetch: (String?) async throws -> (elements: [Element], nextPageToken: String?)
    ) async throws -> [Element] {
        var elements: [Element] = []
        var pageToken: String?
        var seenTokens: Set<String> = []
        repeat {
            let page = try await fetch(pageToken)
            elements += page.elements
            pageToken = page.nextPageToken
            if let token = pageToken {
                guard seenTokens.insert(token).inserted else {
                    throw FirestoreError(code: .internal, message: "\(what): the server repeated page token \(token)")
                }
            }
        } while pageToken != nil
        return elements
    }
}
