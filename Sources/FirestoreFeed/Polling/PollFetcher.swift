import FirestoreREST

/// Fetches one poll's result, in keys mode (two phases) or full mode, reusing the previous poll's documents
/// for every document whose `updateTime` did not move. The building block of the feed's poller, public for
/// benchmarks and for callers that schedule polls themselves. Its requests go out with
/// `HTTPRequest.Priority.background`, so a crowd of polls never takes the connections writes and reads need.
package struct PollFetcher: Sendable {
    /// The result of one poll: full documents in query order, the read time, and what it cost.
    package struct Result: Sendable {
        /// The documents in query order, each the version at ``readTime``.
        package var documents: [Document]
        /// The time the result is consistent at.
        package var readTime: Timestamp
        /// Bytes, requests, latency and documents fetched.
        package var statistics: PollStatistics
    }

    /// The query polled.
    package let query: Query

    /// A fetcher for `query`.
    package init(query: Query) { self.query = query }

    /// The previous result keyed for ``fetch(mode:previous:)``.
    package static func index(_ documents: [Document]) -> [ByteExactName: Document] {
        Dictionary(documents.map { (ByteExactName(name: $0.name), $0) }, uniquingKeysWith: { first, _ in first })
    }
    /// Names per batchGet request (the request body grows with every name).
    static let batchSize = 300

    /// Runs one poll.
    /// - Parameters:
    ///   - mode: keys or full.
    ///   - previous: the documents of the last applied poll, by byte-exact name.
    /// - Throws: `FirestoreError` from the server or transport; `.internal` when the response carries no
    ///   read time or phase two does not return a document phase one listed (the poll is then retried).
    package func fetch(mode: PollMode, previous: [ByteExactName: Document]) async throws -> Result {
        let clock = ContinuousClock()
        let start = clock.now
        switch mode {
        case .fullDocuments:
            let response = try await query.runQuery(priority: .background)
            guard let readTime = response.readTime else {
                throw FirestoreError(code: .internal, message: "runQuery response carries no readTime")
            }
            let documents = Self.unique(response.documents)
            return Result(
                documents: documents, readTime: readTime,
                statistics: PollStatistics(
                    mode: .fullDocuments, bytesReceived: response.responseBytes, latency: clock.now - start,
                    requests: 1, documentsFetched: documents.count))
        case .keys:
            let keys = try await query.select(fields: []).runQuery(priority: .background)
            guard let readTime = keys.readTime else {
                throw FirestoreError(code: .internal, message: "runQuery response carries no readTime")
            }
            let listed = Self.unique(keys.documents)
            let needed = listed.filter { key in
                previous[ByteExactName(name: key.name)]?.updateTime != key.updateTime || key.updateTime == nil
            }
            var fetched: [ByteExactName: Document] = [:]
            var bytes = keys.responseBytes
            var requests = 1
            var batchStart = needed.startIndex
            while batchStart < needed.endIndex {
                let end = min(batchStart + Self.batchSize, needed.endIndex)
                let response = try await query.firestore.batchGet(
                    names: needed[batchStart..<end].map(\.name), mask: query.selection, readTime: readTime,
                    priority: .background)
                for document in response.found.values { fetched[ByteExactName(name: document.name)] = document }
                bytes += response.responseBytes
                requests += 1
                batchStart = end
            }
            var documents: [Document] = []
            documents.reserveCapacity(listed.count)
            for key in listed {
                let name = ByteExactName(name: key.name)
                if let document = fetched[name] ?? previous[name] {
                    documents.append(document)
                } else {
                    throw FirestoreError(
                        code: .internal,
                        message: "batchGet at \(readTime) did not return \(key.name), which runQuery listed")
                }
            }
            return Result(
                documents: documents, readTime: readTime,
                statistics: PollStatistics(
                    mode: .keys, bytesReceived: bytes, latency: clock.now - start, requests: requests,
                    documentsFetched: needed.count))
        }
    }

    /// The documents with repeated names (byte for byte) dropped, the first occurrence kept, so that a
    /// snapshot's list and its changes always agree.
    static func unique(_ documents: [Document]) -> [Document] {
        var seen: Set<ByteExactName> = []
        seen.reserveCapacity(documents.count)
        return documents.filter { seen.insert(ByteExactName(name: $0.name)).inserted }
    }
}
