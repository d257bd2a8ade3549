import FirestoreWire
import Synchronization

/// What a client remembers of its gRPC calls, shared by the copies of a client (``Firestore/using(protocol:)``,
/// ``Firestore/settingServerTimestamp(on:)``): the one ``RPCChannel`` its calls share (made at the first call), the
/// ``RPCCallGate`` that orders them,
/// and, for ``FirestoreProtocol/automatic``, until when REST is used because HTTP/2 was refused.
package final class RPCClientState: Sendable {
    private struct Fields {
        var channel: (any RPCChannel)?
        var gate: RPCCallGate?
        var restUntil: ContinuousClock.Instant?
        /// Set by ``close(with:)``: no channel is made any more.
        var closed: FirestoreError?
    }

    private let fields = Mutex(Fields())

    /// How long an ``FirestoreProtocol/automatic`` client keeps to REST after HTTP/2 was refused: 5 minutes, as a
    /// Listen feed that fell back to polling waits before trying the stream again.
    package static let restAfterRefusal: Duration = .seconds(300)

    /// An empty state: no channel yet, gRPC not refused.
    package init() {}

    /// The shared channel, made by `make` at the first call.
    /// - Throws: `make`'s error (nothing is remembered then); the error given to ``close(with:)`` once closed.
    package func channel(_ make: () throws(FirestoreError) -> any RPCChannel) throws(FirestoreError) -> any RPCChannel {
        let known = fields.withLock { fields -> Result<(any RPCChannel)?, FirestoreError> in
            if let closed = fields.closed { return .failure(closed) }
            return .success(fields.channel)
        }
        if let channel = try known.get() { return channel }
        let made = try make()
        let kept = fields.withLock { fields -> Result<any RPCChannel, FirestoreError> in
            if let closed = fields.closed { return .failure(closed) }
            if let channel = fields.channel { return .success(channel) }
            fields.channel = made
            return .success(made)
        }
        switch kept {
        case .success(let channel): return channel
        case .failure(let error):
            // Closed while `made` was being made: it is shut down here, without waiting.
            Task { await made.close() }
            throw error
        }
    }

    /// Makes no channel any more (later calls throw `error`) and closes the one made, if any: its calls end with
    /// `.cancelled`, and this returns once its thread and connections are gone (``RPCChannel/close()``).
    package func close(with error: FirestoreError) async {
        let channel = fields.withLock { fields -> (any RPCChannel)? in
            fields.closed = fields.closed ?? error
            defer { fields.channel = nil }
            return fields.channel
        }
        await channel?.close()
    }

    /// The gate of the client's calls (``RPCCallGate``), made for `capacity` calls at the first call.
    package func gate(capacity: Int) -> RPCCallGate {
        fields.withLock { fields in
            if let gate = fields.gate { return gate }
            let gate = RPCCallGate(capacity: capacity)
            fields.gate = gate
            return gate
        }
    }

    /// Notes that HTTP/2 was refused at `now`: REST is used until ``restAfterRefusal`` has passed.
    package func noteRefusal(at now: ContinuousClock.Instant = .now) {
        fields.withLock { $0.restUntil = now + Self.restAfterRefusal }
    }

    /// Whether an ``FirestoreProtocol/automatic`` client should try gRPC at `now`.
    package func triesGRPC(at now: ContinuousClock.Instant = .now) -> Bool {
        fields.withLock { fields in
            guard let until = fields.restUntil else { return true }
            if now >= until { fields.restUntil = nil }
            return now >= until
        }
    }
}
