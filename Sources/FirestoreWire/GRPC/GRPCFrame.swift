/// The gRPC length-prefixed message framing ("Length-Prefixed-Message" in gRPC's `PROTOCOL-HTTP2.md`,
/// grpc/grpc): each message on the HTTP/2 stream is
///
/// ```
/// +-----------------+------------------------------+-----------------+
/// | compressed flag | message length (big-endian)  | message bytes   |
/// | 1 byte (0 or 1) | 4 bytes, unsigned            | length bytes    |
/// +-----------------+------------------------------+-----------------+
/// ```
///
/// This layer never negotiates compression (it sends no `grpc-encoding` header), so it writes a flag of 0 and
/// refuses a flag of 1 when decoding (see ``GRPCFrameDecoder``).
package enum GRPCFrame {
    /// The bytes in front of every message: the flag and the length. Always 5.
    package static let headerByteCount = 5

    /// The largest message either direction accepts by default: 64 MiB (67,108,864 bytes). gRPC's own
    /// implementations default to 4 MiB for received messages; Firestore documents are at most 1 MiB, but a
    /// `ListenResponse` or `BatchGetDocumentsResponse` wraps one with its metadata, and a larger cap costs
    /// nothing until such a message arrives.
    package static let defaultMaxMessageByteCount = 64 * 1024 * 1024

    /// `message` framed for the wire: a zero flag, the length as 4 big-endian bytes, then the bytes.
    ///
    /// - Parameter message: the serialized message; at most ``defaultMaxMessageByteCount`` bytes.
    /// - Returns: `message.count + 5` bytes.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when `message` is longer than `maxMessageByteCount`
    ///   (the length field could not hold it, or the peer would refuse it).
    /// - Complexity: O(n) in the message length.
    package static func encode(_ message: [UInt8], maxMessageByteCount: Int = defaultMaxMessageByteCount)
        throws(FirestoreError) -> [UInt8]
    {
        let limit = min(maxMessageByteCount, Int(UInt32.max))
        guard message.count <= limit else {
            throw .invalidArgument("gRPC message of \(message.count) bytes exceeds the limit of \(limit) bytes")
        }
        let length = UInt32(message.count)
        var frame: [UInt8] = []
        frame.reserveCapacity(headerByteCount + message.count)
        frame.append(0)
        frame.append(UInt8(truncatingIfNeeded: length >> 24))
        frame.append(UInt8(truncatingIfNeeded: length >> 16))
        frame.append(UInt8(truncatingIfNeeded: length >> 8))
        frame.append(UInt8(truncatingIfNeeded: length))
        frame.append(contentsOf: message)
        return frame
    }
}
