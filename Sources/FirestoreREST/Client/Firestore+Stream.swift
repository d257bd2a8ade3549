import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Firestore {
    /// Sends `request` with this client's credentials (as ``sendAuthorized(_:)``: one refresh after a `401`) and
    /// returns the body of a 2xx response as it arrives: streamed by an ``HTTPStreamingTransport``, else the whole
    /// body of ``HTTPTransport/send(_:)`` as one chunk. Not retried here: the caller decides, knowing what it
    /// already delivered.
    /// - Throws: ``FirestoreError``: the server's error for a non-2xx status (decoded from its body, with
    ///   ``FirestoreError/retryAfter``); the credentials' or the transport's error.
    func streamAuthorized(_ request: HTTPRequest) async throws -> HTTPBodyStream {
        var refreshed = false
        var known = request.credentialValues
        while true {
            try lifecycle.check()
            let (attempt, authorization) = try await authorized(request)
            known.formUnion(attempt.credentialValues)
            let response: HTTPStreamedResponse
            let transport = transport
            do {
                if let streaming = transport as? any HTTPStreamingTransport {
                    let streamed = try await lifecycle.guarded { try await streaming.stream(attempt) }
                    response = HTTPStreamedResponse(
                        status: streamed.status, headers: streamed.headers,
                        body: HTTPBodyStream(
                            source: ShutdownBodySource(base: streamed.body.source, lifecycle: lifecycle)))
                } else {
                    let whole = try await lifecycle.guarded { try await transport.send(attempt) }
                    response = HTTPStreamedResponse(
                        status: whole.status, headers: whole.headers, body: HTTPBodyStream(chunks: [whole.body]))
                }
            } catch let error as FirestoreError {
                throw error.redacting(known: known)
            }
            if response.status == 401, !refreshed, let authorization,
                await credentials.invalidate(refusedHeader: authorization)
            {
                refreshed = true
                continue
            }
            guard (200..<300).contains(response.status) else {
                var body = Data()
                for try await chunk in response.body {
                    body.append(chunk)
                    if body.count > JSONArrayStreamSplitter.maxNonArrayBytes { break }
                }
                var error = FirestoreError(status: response.status, body: body, known: Array(known))
                error.retryAfter = response.headers.first { $0.matches("Retry-After") }
                    .flatMap { FirestoreError.parseRetryAfter($0.value) }
                throw error
            }
            return response.body
        }
    }
}
