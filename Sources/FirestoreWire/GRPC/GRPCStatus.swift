/// The status a gRPC call ended with: the `grpc-status` number and the decoded `grpc-message`, as sent in
/// the trailers (or in the headers of a trailers-only response; gRPC's `PROTOCOL-HTTP2.md`).
package struct GRPCStatus: Sendable, Hashable {
    /// The status number, 0 (`OK`) to 16 (`UNAUTHENTICATED`) (`google/rpc/code.proto`); other values can
    /// arrive and map to ``FirestoreError/Code/unknown``.
    package let number: Int
    /// The `grpc-message` text, percent-decoded (``GRPCPercentDecoding``); empty when absent.
    package let message: String

    package init(number: Int, message: String) {
        self.number = number
        self.message = message
    }

    /// Reads `grpc-status` and `grpc-message` from header fields.
    ///
    /// - Parameter headers: trailers, or the headers of a trailers-only response.
    /// - Returns: `nil` when there is no `grpc-status` field. A value that is not a decimal number gives
    ///   number 2 (`UNKNOWN`) with a message quoting it.
    package init?(headers: [HTTPHeader]) {
        guard let raw = headers.last(where: { $0.matches("grpc-status") })?.value else { return nil }
        let text = headers.last(where: { $0.matches("grpc-message") }).map { GRPCPercentDecoding.decode($0.value) }
        if let number = Int(raw), number >= 0 {
            self.init(number: number, message: text ?? "")
        } else {
            self.init(number: 2, message: "invalid grpc-status \"\(raw)\"" + (text.map { ": " + $0 } ?? ""))
        }
    }

    /// Whether the call succeeded (number 0).
    package var isOK: Bool { number == 0 }

    /// The ``FirestoreError/Code`` of ``number``: 1 `.cancelled`, 2 `.unknown`, 3 `.invalidArgument`,
    /// 4 `.deadlineExceeded`, 5 `.notFound`, 6 `.alreadyExists`, 7 `.permissionDenied`, 8 `.resourceExhausted`,
    /// 9 `.failedPrecondition`, 10 `.aborted`, 11 `.outOfRange`, 12 `.unimplemented`, 13 `.internal`,
    /// 14 `.unavailable`, 15 `.dataLoss`, 16 `.unauthenticated` (`google/rpc/code.proto`); 0 and any other
    /// number give `.unknown` (0 is not an error; callers check ``isOK`` first).
    package var code: FirestoreError.Code {
        Self.codes.indices.contains(number) ? Self.codes[number] : .unknown
    }

    private static let codes: [FirestoreError.Code] = [
        .unknown, .cancelled, .unknown, .invalidArgument, .deadlineExceeded, .notFound, .alreadyExists,
        .permissionDenied, .resourceExhausted, .failedPrecondition, .aborted, .outOfRange, .unimplemented,
        .internal, .unavailable, .dataLoss, .unauthenticated,
    ]

    /// The error for a non-OK status: ``code`` and ``message`` (or `grpc-status N` when the server sent no
    /// message), marked as named by the server.
    package var error: FirestoreError {
        var error = FirestoreError(code: code, message: message.isEmpty ? "grpc-status \(number)" : message)
        error.isServerStatus = true
        return error
    }

    /// The code for a response whose HTTP status is not 200, when it carries no `grpc-status`: gRPC's
    /// `doc/http-grpc-status-mapping.md` (grpc/grpc): 400 `.internal`, 401 `.unauthenticated`,
    /// 403 `.permissionDenied`, 404 `.unimplemented`, 429, 502, 503 and 504 `.unavailable`, anything else
    /// `.unknown`.
    package static func code(forHTTPStatus status: Int) -> FirestoreError.Code {
        switch status {
        case 400: return .internal
        case 401: return .unauthenticated
        case 403: return .permissionDenied
        case 404: return .unimplemented
        case 429, 502, 503, 504: return .unavailable
        default: return .unknown
        }
    }
}
