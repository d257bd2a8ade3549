extension FirestoreError.Code {
    /// The canonical code for a numeric `google.rpc.Code` (`google/rpc/code.proto`: 1 `CANCELLED` ...
    /// 16 `UNAUTHENTICATED`), as carried by `google.rpc.Status.code` and the `grpc-status` trailer; `nil` for
    /// 0 (`OK`, not an error); any other number is `.unknown`, as gRPC treats unknown codes.
    package init?(rpcCode: Int32) {
        switch rpcCode {
        case 0: return nil
        case 1: self = .cancelled
        case 2: self = .unknown
        case 3: self = .invalidArgument
        case 4: self = .deadlineExceeded
        case 5: self = .notFound
        case 6: self = .alreadyExists
        case 7: self = .permissionDenied
        case 8: self = .resourceExhausted
        case 9: self = .failedPrecondition
        case 10: self = .aborted
        case 11: self = .outOfRange
        case 12: self = .unimplemented
        case 13: self = .internal
        case 14: self = .unavailable
        case 15: self = .dataLoss
        case 16: self = .unauthenticated
        default: self = .unknown
        }
    }

    /// The numeric `google.rpc.Code` of this code, the inverse of ``init(rpcCode:)``: 1 for `.cancelled` ... 16 for
    /// `.unauthenticated`; 2 (`UNKNOWN`) for a code that is not canonical.
    package var rpcCode: Int32 {
        (1...16).first { Self(rpcCode: $0) == self } ?? 2
    }
}
