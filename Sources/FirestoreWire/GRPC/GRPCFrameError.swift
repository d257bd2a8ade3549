/// Why a gRPC response body could not be split into messages (see ``GRPCFrameDecoder``), and where.
package struct GRPCFrameError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    package enum Reason: Sendable, Hashable {
        /// The compressed flag was 1, but no compression was negotiated (`PROTOCOL-HTTP2.md`: a flag of 1
        /// requires a `grpc-encoding` the client asked for).
        case compressedMessage
        /// The compressed flag was neither 0 nor 1.
        case invalidFlag(UInt8)
        /// The announced length is larger than the decoder's limit.
        case messageTooLarge(length: Int, limit: Int)
    }

    /// The byte offset, counted from the first byte of the response body, of the byte at fault: the flag
    /// byte for ``Reason/compressedMessage`` and ``Reason/invalidFlag(_:)``, the first length byte for
    /// ``Reason/messageTooLarge(length:limit:)``.
    package let offset: Int
    /// What was wrong.
    package let reason: Reason

    package init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    /// E.g. `gRPC message at byte offset 10 is compressed, but no compression was negotiated`.
    package var description: String {
        switch reason {
        case .compressedMessage:
            return "gRPC message at byte offset \(offset) is compressed, but no compression was negotiated"
        case .invalidFlag(let flag):
            return "invalid gRPC compressed flag \(flag) at byte offset \(offset) (expected 0)"
        case .messageTooLarge(let length, let limit):
            return "gRPC message length \(length) at byte offset \(offset) exceeds the limit of \(limit) bytes"
        }
    }
}
