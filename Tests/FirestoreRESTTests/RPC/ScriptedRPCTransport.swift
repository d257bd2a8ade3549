import FirestoreTestSupport
import Foundation
import Synchronization

@testable import FirestoreREST

/// A transport that answers REST requests from a ``ScriptedTransport`` and gRPC calls from a script of outcomes,
/// one per call (a list of response messages, or an error), logging each call's method, metadata and request.
final class ScriptedRPCTransport: RPCTransport, RPCChannel {
    enum Outcome: Sendable {
        case messages([[UInt8]])
        case failure(FirestoreError)
    }

    struct LoggedCall: Sendable {
        var method: String
        var metadata: [HTTPHeader]
        var timeout: Double?
        var request: [UInt8] = []
    }

    let rest: ScriptedTransport
    private let outcomes: [Outcome]
    private let log = Mutex<[LoggedCall]>([])

    init(rest: ScriptedTransport = ScriptedTransport([]), rpc outcomes: [Outcome]) {
        self.rest = rest
        self.outcomes = outcomes
    }

    var calls: [LoggedCall] { log.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        try await rest.send(request)
    }

    func makeRPCChannel(for firestore: Firestore) throws(FirestoreError) -> any RPCChannel { self }

    var rpcTimeout: Double? { 30 }

    var rpcConcurrency: Int { 4 }

    func makeRPCCall(method: String, request: [UInt8], metadata: [HTTPHeader], timeout: Double?)
        throws(FirestoreError) -> any RPCCall
    {
        let index = log.withLock { log in
            log.append(LoggedCall(method: method, metadata: metadata, timeout: timeout, request: request))
            return log.count - 1
        }
        let outcome =
            index < outcomes.count
            ? outcomes[index] : .failure(FirestoreError(code: .unavailable, message: "script exhausted"))
        return ScriptedRPCCall(outcome)
    }
}

/// One scripted call: its messages, then OK or the error.
final class ScriptedRPCCall: RPCCall {
    let responses: AsyncThrowingStream<[UInt8], any Error>

    init(_ outcome: ScriptedRPCTransport.Outcome) {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self)
        switch outcome {
        case .messages(let messages):
            for message in messages { continuation.yield(message) }
            continuation.finish()
        case .failure(let error):
            continuation.finish(throwing: error)
        }
        responses = stream
    }

    func cancel() {}
}

/// Credentials that hand out `Bearer token-N`, N counting refreshes.
final class RefreshingCredentials: Credentials {
    private let generation = Mutex(0)

    func authorizationHeader() async throws -> String? { "Bearer token-\(generation.withLock { $0 })" }

    func invalidate(refusedHeader: String) async -> Bool {
        generation.withLock { generation in
            guard refusedHeader == "Bearer token-\(generation)" else { return false }
            generation += 1
            return true
        }
    }
}
