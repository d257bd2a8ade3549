internal import CCurl

/// Turns a failed libcurl transfer into a ``FirestoreError`` whose message names the URL and curl's reason.
package enum CurlErrorMapping {
    /// The error for a transfer that ended with `code`.
    ///
    /// - `COULDNT_CONNECT`, `COULDNT_RESOLVE_HOST`, `COULDNT_RESOLVE_PROXY`, `SEND_ERROR`, `RECV_ERROR`,
    ///   `GOT_NOTHING`, `PARTIAL_FILE`, `SSL_CONNECT_ERROR`, `HTTP2`, `HTTP2_STREAM` → `.unavailable` (no
    ///   complete response; worth a retry)
    /// - `OPERATION_TIMEDOUT` → `.deadlineExceeded` (the message tells a stalled transfer from a timeout)
    /// - `PEER_FAILED_VERIFICATION` (unknown CA, wrong host name), `SSL_CACERT_BADFILE` → `.failedPrecondition`
    ///   (a configuration problem that no retry fixes)
    /// - a body larger than the cap → `.resourceExhausted`; an abort because the task was cancelled → `.cancelled`
    /// - `UNSUPPORTED_PROTOCOL` for a reply without a status line ("Received HTTP/0.9") → `.unavailable`
    /// - `URL_MALFORMAT`, other `UNSUPPORTED_PROTOCOL` → `.invalidArgument`
    /// - anything else → `.unknown`
    ///
    /// - Parameters:
    ///   - detail: libcurl's error buffer text (may be empty; then `curl_easy_strerror` is used).
    ///   - url: the request URL; the message shows only scheme, host, port and path (see ``Redaction/url(_:)``).
    static func error(
        for code: CURLcode, detail: String, url: String, collector: CurlResponseCollector,
        configuration: CurlTransport.Configuration
    ) -> FirestoreError {
        let reason = detail.isEmpty ? CurlRuntime.describe(code) : detail
        let location = Redaction.url(url)
        if collector.exceededBodyLimit {
            var error = FirestoreError(
                code: .resourceExhausted,
                message: "response body exceeds maxResponseBytes (\(collector.maxBodyBytes) bytes): \(location)")
            error.isNeverRetried = true
            return error
        }
        if collector.abortedByCancellation {
            return cancelled(url: url)
        }
        let summary: String
        let errorCode: FirestoreError.Code
        switch code {
        case CURLE_COULDNT_CONNECT:
            (errorCode, summary) = (.unavailable, "could not connect")
        case CURLE_COULDNT_RESOLVE_HOST:
            (errorCode, summary) = (.unavailable, "could not resolve host")
        case CURLE_SEND_ERROR:
            (errorCode, summary) = (.unavailable, "failed to send the request")
        case CURLE_RECV_ERROR:
            (errorCode, summary) = (.unavailable, "failed to receive the response")
        case CURLE_GOT_NOTHING:
            (errorCode, summary) = (.unavailable, "server closed the connection without a response")
        case CURLE_PARTIAL_FILE:
            (errorCode, summary) = (.unavailable, "response ended before its announced length")
        case CURLE_SSL_CONNECT_ERROR:
            (errorCode, summary) = (.unavailable, "TLS handshake failed")
        case CURLE_HTTP2, CURLE_HTTP2_STREAM:
            (errorCode, summary) = (.unavailable, "HTTP/2 stream failed")
        case CURLE_OPERATION_TIMEDOUT where reason.contains("too slow"):
            (errorCode, summary) = (
                .deadlineExceeded,
                "transfer stalled (below lowSpeedLimit \(configuration.lowSpeedLimit) bytes/s for lowSpeedTime "
                    + "\(configuration.lowSpeedTime) s)"
            )
        case CURLE_OPERATION_TIMEDOUT:
            (errorCode, summary) = (
                .deadlineExceeded,
                "timed out (connectTimeout \(configuration.connectTimeout) s, "
                    + "requestTimeout \(configuration.requestTimeout) s)"
            )
        case CURLE_ABORTED_BY_CALLBACK:
            (errorCode, summary) = (.cancelled, "request cancelled")
        case CURLE_COULDNT_RESOLVE_PROXY:
            (errorCode, summary) = (.unavailable, "could not resolve the proxy host")
        case CURLE_PEER_FAILED_VERIFICATION:
            (errorCode, summary) = (.failedPrecondition, "TLS certificate verification failed")
        case CURLE_SSL_CACERT_BADFILE:
            (errorCode, summary) = (
                .failedPrecondition, "cannot read the CA bundle \(configuration.caBundlePath ?? "(system default)")"
            )
        case CURLE_URL_MALFORMAT:
            (errorCode, summary) = (.invalidArgument, "malformed URL")
        case CURLE_UNSUPPORTED_PROTOCOL where reason.contains("HTTP/0.9"):
            // The server answered without a status line: a broken peer, which may recover.
            (errorCode, summary) = (.unavailable, "the server's reply is not HTTP")
        case CURLE_UNSUPPORTED_PROTOCOL:
            (errorCode, summary) = (.invalidArgument, "unsupported protocol (only http and https are allowed)")
        default:
            (errorCode, summary) = (.unknown, "transfer failed with curl error \(code.rawValue)")
        }
        var error = FirestoreError(code: errorCode, message: "\(summary): \(location) (\(reason))")
        error.transportFailure = transportFailure(code, reason: reason)
        // Nothing reached the server when the connection itself could not be made.
        switch code {
        case CURLE_COULDNT_CONNECT, CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY,
            CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE:
            error.requestWasNotSent = true
        default:
            break
        }
        return error
    }

    /// The kind of failure a recording keeps for `code` (``TransportFailure``), or `nil` for the others (TLS,
    /// HTTP/2, configuration errors, cancellation).
    static func transportFailure(_ code: CURLcode, reason: String) -> TransportFailure? {
        switch code {
        case CURLE_OPERATION_TIMEDOUT: return reason.contains("too slow") ? .stalled : .timeout
        case CURLE_SEND_ERROR, CURLE_RECV_ERROR, CURLE_GOT_NOTHING: return .reset
        case CURLE_COULDNT_CONNECT: return .refused
        case CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_PROXY: return .unresolved
        case CURLE_PARTIAL_FILE: return .truncated
        default: return nil
        }
    }

    /// The error for a request that was cancelled before or while it ran.
    package static func cancelled(url: String) -> FirestoreError {
        FirestoreError(code: .cancelled, message: "request cancelled: \(Redaction.url(url))")
    }

    /// `url` reduced to `scheme://host:port/path`: ``Redaction/url(_:)``.
    static func redacted(_ url: String) -> String { Redaction.url(url) }
}
