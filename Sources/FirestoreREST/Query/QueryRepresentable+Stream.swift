import FirestoreWire

extension QueryRepresentable {
    /// Runs the query once and delivers its documents one by one as the response arrives (Node `Query.stream()`,
    /// Python `Query.stream()`): runQuery's JSON array is decoded element by element while it downloads, so memory
    /// holds one batch of the response, not the whole result (BENCHMARKS.md, `export-memory`).
    ///
    /// ```swift
    /// for try await fruit in db.collection("fruits").order(by: "name").stream() {
    ///     print(fruit.documentID, fruit.readTime ?? .null)
    /// }
    /// ```
    ///
    /// - **Backpressure and cancellation.** Nothing is read ahead of the consumer beyond one chunk of the response:
    ///   a slow consumer holds the transfer back. Leaving the loop (`break`, an error) or cancelling the task stops
    ///   the transfer within about a second and frees its connection.
    /// - **Retries that never repeat a document.** When the stream fails mid-way with a retryable error (the
    ///   connection cut, `unavailable`, an `{"error"}` element; per ``Firestore/retryPolicy``), it is sent again from
    ///   after the last document it decoded (``QueryRepresentable/start(afterDocument:)``), at the first response's
    ///   `readTime`, so the rest comes from the same snapshot; a `limit` is reduced by the documents already
    ///   delivered and an `offset` dropped once documents came (nodejs-firestore #1790 and #2200 report
    ///   duplicates and overlong results from restarts that did neither).
    /// - Each snapshot's ``DocumentSnapshot/readTime`` is its response element's.
    ///
    /// A transport that is not an ``HTTPStreamingTransport`` (a replay, a test double) delivers its whole body at
    /// once; the decoding and the retries are the same.
    /// - Returns: the documents in query order; the sequence throws ``FirestoreError``: `.invalidArgument` for an
    ///   invalid query or a `limit(toLast:)` (the Node SDK's rule: its last documents are known only at the end;
    ///   use ``getDocuments()``), before sending; the server's or the transport's error when retries are exhausted
    ///   or the error is not retryable; `.internal` for a malformed response (naming the element or byte offset).
    /// - Complexity: O(n) for an n-byte response; memory O(one element + one chunk).
    public func stream() -> AsyncThrowingStream<DocumentSnapshot, any Error> {
        let producer = QueryStreamProducer(query: query)
        return AsyncThrowingStream(unfolding: { try await producer.next() })
    }
}
