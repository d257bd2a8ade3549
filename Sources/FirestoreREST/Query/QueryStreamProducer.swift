import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The state of one ``QueryRepresentable/stream()``: the response being read, the documents decoded from it and
/// not yet delivered, and what a retry resumes from.
actor QueryStreamProducer {
    private let query: Query
    private var body: HTTPBodyStream.Iterator?
    private var splitter = JSONArrayStreamSplitter()
    private var element = 0
    /// Decoded documents not yet delivered, from `pendingStart` on.
    private var pending: [DocumentSnapshot] = []
    private var pendingStart = 0
    /// The last document decoded (delivered or pending): where a retry resumes.
    private var lastDecoded: DocumentSnapshot?
    /// Documents decoded over every attempt.
    private var decoded = 0
    /// The `readTime` of the first response: a retry reads the same snapshot.
    private var snapshotTime: Timestamp?
    /// Whether this attempt's response carried a `readTime` (every good one does).
    private var sawReadTime = false
    private var failedAttempts = 0
    private var finished = false
    /// The error that ended the stream, thrown once the documents decoded before it are delivered.
    private var failure: (any Error)?

    init(query: Query) {
        self.query = query
    }

    /// The next document, or `nil` at the end.
    func next() async throws -> DocumentSnapshot? {
        while true {
            if pendingStart < pending.count {
                defer { pendingStart += 1 }
                return pending[pendingStart]
            }
            pending.removeAll(keepingCapacity: true)
            pendingStart = 0
            if let failure {
                self.failure = nil
                throw failure
            }
            if finished { return nil }
            do {
                if body == nil { try await open() }
                guard !finished else { return nil }
                var iterator = body
                let next = try await iterator?.next()
                body = iterator
                if let chunk = next {
                    try consume(chunk)
                } else {
                    try endOfBody()
                    finished = true
                }
            } catch {
                body = nil
                do {
                    try await prepareRetry(after: error)
                } catch {
                    failure = error  // after the documents that came before it
                }
            }
        }
    }

    /// Sends the request of the next attempt: the query resumed after the last decoded document, at the first
    /// response's read time.
    private func open() async throws {
        let firestore = query.firestore
        guard query.limitType == .first || query.limit == nil else {
            finished = true
            throw FirestoreError.invalidArgument(
                "Query results for queries that include limitToLast() constraints cannot be streamed. "
                    + "Use Query.get() instead.")
        }
        var resumed = query
        if let lastDecoded {
            resumed = resumed.start(afterDocument: lastDecoded)
            resumed.offset = nil
        }
        if let limit = query.limit {
            guard limit > decoded else {
                finished = true
                return
            }
            resumed.limit = limit - decoded
        }
        var members: [String: JSONValue] = ["structuredQuery": try resumed.structuredQuery()]
        if let snapshotTime { members["readTime"] = .string(snapshotTime.rfc3339) }
        let resource = firestore.encodedName(of: try query.parentPath()) + ":runQuery"
        let request = HTTPRequest(
            method: "POST", url: firestore.url(resource),
            headers: [HTTPHeader("Accept", "application/json"), HTTPHeader("Content-Type", "application/json")],
            body: JSONValue.object(members).serialized(), isIdempotent: true)
        splitter = JSONArrayStreamSplitter()
        element = 0
        sawReadTime = false
        body = try await firestore.streamAuthorized(request).makeAsyncIterator()
    }

    /// Decodes the elements `chunk` completes.
    private func consume(_ chunk: Data) throws(FirestoreError) {
        let firestore = query.firestore
        try splitter.feed(chunk) { (bytes) throws(FirestoreError) in
            let position = element
            element += 1
            let json: JSONValue
            do {
                json = try JSONValue.parse(Data(bytes))
            } catch {
                throw FirestoreError(
                    code: .internal, message: "runQuery response is not JSON: element \(position): \(error)")
            }
            guard case .object = json else {
                throw FirestoreError(
                    code: .internal, message: "runQuery element \(position) is a \(json.typeName), not an object")
            }
            if let error = json["error"] { throw FirestoreError.decode(errorObject: error, httpStatus: 200) }
            var row = RunQueryResponse(documents: [], readTime: nil, skippedResults: 0)
            try Firestore.addRunQueryElement(json, position: position, to: &row)
            if let readTime = row.readTime {
                sawReadTime = true
                if snapshotTime == nil { snapshotTime = readTime }
            }
            for document in row.documents {
                let snapshot = DocumentSnapshot(firestore: firestore, document: document, readTime: row.readTime)
                pending.append(snapshot)
                lastDecoded = snapshot
                decoded += 1
            }
        }
    }

    /// Checks the end of a response.
    private func endOfBody() throws(FirestoreError) {
        if let whole = try splitter.finish() {
            // Not an array: an error object (or something malformed), which the tree decoder names.
            let json: JSONValue
            do {
                json = try JSONValue.parse(Data(whole))
            } catch {
                throw FirestoreError(code: .internal, message: "runQuery response is not JSON: \(error)")
            }
            _ = try Firestore.decodeRunQuery(json)
            return
        }
        guard sawReadTime else {
            throw FirestoreError(code: .internal, message: "runQuery response carries no readTime")
        }
    }

    /// Waits before the next attempt when `error` may be retried, or rethrows it.
    private func prepareRetry(after error: any Error) async throws {
        let policy = query.firestore.retryPolicy
        failedAttempts += 1
        guard !finished, let failure = error as? FirestoreError, policy.isRetryable(failure), !failure.isNeverRetried,
            failedAttempts < policy.maxAttempts,
            let delay = policy.delay(
                beforeRetry: failedAttempts, serverDelay: failure.retryAfter, randomUnit: Double.random(in: 0..<1))
        else {
            finished = true
            throw error
        }
        do {
            try await policy.clock.sleep(for: delay)
        } catch {
            finished = true
            throw FirestoreError(code: .cancelled, message: "the stream was cancelled while waiting to retry")
        }
    }
}
