/// Splits a gRPC response body, arriving in arbitrary chunks, into complete messages (the framing of
/// ``GRPCFrame``, from gRPC's `PROTOCOL-HTTP2.md`).
///
/// Chunks may end anywhere: inside the 5-byte header, inside a message, or hold many messages. The decoder
/// keeps the bytes of at most one incomplete frame. It never traps on any input: a bad frame is a
/// ``GRPCFrameError`` naming the byte offset; after one, every later call throws the same error.
///
/// ```swift
/// var decoder = GRPCFrameDecoder()
/// let messages = try decoder.decode([0, 0, 0, 0, 2, 0x0A, 0x00, 0])  // [[0x0A, 0x00]], 1 byte kept
/// ```
package struct GRPCFrameDecoder: Sendable {
    /// The largest message length accepted, in bytes.
    package let maxMessageByteCount: Int
    /// The bytes of the incomplete frame at the end of the input so far.
    private var pending: [UInt8] = []
    /// The body offset of `pending[0]`.
    private var pendingOffset = 0
    private var failure: GRPCFrameError?

    /// - Parameter maxMessageByteCount: the largest message accepted, in bytes; a longer announced length is
    ///   an error before any of its bytes are buffered. Default ``GRPCFrame/defaultMaxMessageByteCount``
    ///   (64 MiB).
    package init(maxMessageByteCount: Int = GRPCFrame.defaultMaxMessageByteCount) {
        self.maxMessageByteCount = max(0, maxMessageByteCount)
    }

    /// Whether bytes of an incomplete frame are waiting for more input. At the end of the body this means the
    /// body was truncated.
    package var hasPartialFrame: Bool { !pending.isEmpty }

    /// How many body bytes have been taken in so far.
    package var byteCount: Int { pendingOffset + pending.count }

    /// Takes the next chunk of the body and returns the messages it completes, in order.
    ///
    /// - Parameter chunk: the next body bytes, of any length (an empty chunk returns no messages).
    /// - Returns: every message completed by `chunk`, each without its 5-byte header.
    /// - Throws: ``GRPCFrameError``: a compressed flag of 1 (``GRPCFrameError/Reason/compressedMessage``) or
    ///   any other non-zero flag, or a length above ``maxMessageByteCount``.
    /// - Complexity: O(n) in the chunk length plus the bytes of the messages it completes.
    package mutating func decode(_ chunk: some Collection<UInt8>) throws(GRPCFrameError) -> [[UInt8]] {
        if let failure { throw failure }
        pending.append(contentsOf: chunk)
        var messages: [[UInt8]] = []
        var start = 0
        while pending.count - start >= GRPCFrame.headerByteCount {
            let flag = pending[start]
            guard flag == 0 else {
                let error = GRPCFrameError(
                    offset: pendingOffset + start, reason: flag == 1 ? .compressedMessage : .invalidFlag(flag))
                failure = error
                throw error
            }
            var length = 0
            for index in 1...4 {
                length = length << 8 | Int(pending[start + index])
            }
            guard length <= maxMessageByteCount else {
                let error = GRPCFrameError(
                    offset: pendingOffset + start + 1,
                    reason: .messageTooLarge(length: length, limit: maxMessageByteCount))
                failure = error
                throw error
            }
            let bodyStart = start + GRPCFrame.headerByteCount
            guard pending.count - bodyStart >= length else { break }
            messages.append(Array(pending[bodyStart..<(bodyStart + length)]))
            start = bodyStart + length
        }
        if start > 0 {
            pending.removeFirst(start)
            pendingOffset += start
        }
        return messages
    }
}
