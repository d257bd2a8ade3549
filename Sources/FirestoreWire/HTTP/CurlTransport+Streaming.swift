extension CurlTransport: HTTPStreamingTransport {
    /// Sends `request` and returns as soon as the response head has arrived; the body arrives in
    /// ``HTTPStreamedResponse/body`` chunk by chunk, at most one chunk ahead of the reader (``HTTPBodyStream``).
    ///
    /// As ``send(_:)``, except: no whole-request timeout (a stream may take as long as its reader; a stalled one
    /// is still aborted by ``Configuration/lowSpeedLimit``), and no body size cap (nothing is accumulated). The
    /// transfer holds a connection of the pool until the body ends, fails, or the reader goes away (every copy of
    /// the body stream dropped, or the reading task cancelled), which stops it within about a second.
    /// - Throws: ``FirestoreError`` as ``send(_:)`` when no response head arrived.
    public func stream(_ request: HTTPRequest) async throws -> HTTPStreamedResponse {
        if Task.isCancelled { throw CurlErrorMapping.cancelled(url: request.url) }
        var configuration = self.configuration
        configuration.requestTimeout = 0
        let cancellation = CurlCancellation()
        let transfer = try CurlTransfer(request: request, configuration: configuration, cancellation: cancellation)
        let channel = CurlBodyChannel(cancellation: cancellation)
        let owner = CurlBodyOwner(channel: channel)
        let handle = try await pool.checkOut(url: request.url, priority: request.priority)
        let pool = self.pool
        let started = TransferThread.start(name: "CurlStream") {
            let collector = CurlResponseCollector(
                maxBodyBytes: Int.max, cancellation: cancellation, sink: channel.deliver,
                onHead: channel.receiveHead)
            let outcome = transfer.run(on: handle, collector: collector)
            pool.checkIn(handle)
            self.connectionsOpened.add(outcome.connectionsOpened, ordering: .relaxed)
            channel.finish(outcome.result.map { _ in () })
        }
        guard started else {
            pool.checkIn(handle)
            throw FirestoreError(
                code: .unavailable, message: "could not start a transfer thread: \(Redaction.url(request.url))")
        }
        let head = try await channel.head(url: request.url)
        return HTTPStreamedResponse(
            status: head.status, headers: head.headers, body: HTTPBodyStream(source: owner))
    }
}
