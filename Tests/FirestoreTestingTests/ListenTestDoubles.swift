import FirestoreFeed
import FirestoreTestSupport
import Foundation
import Synchronization

@testable import FirestoreREST
@testable import FirestoreTesting

/// A live Listen transport for unit tests: its calls record what was sent and answer with what the test
/// queues (``FakeListenCall/respond(_:)``, ``FakeListenCall/end(_:)``); no network.
final class FakeListenTransport: ListenTransport {
    let calls = Mutex<[FakeListenCall]>([])

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        throw FirestoreError(code: .unavailable, message: "the fake Listen transport makes no HTTP requests")
    }

    func makeListenChannel(for firestore: Firestore) throws(FirestoreError) -> any ListenChannel {
        FakeListenChannel(transport: self)
    }

    struct FakeListenChannel: ListenChannel {
        let transport: FakeListenTransport

        func makeListenCall(metadata: [HTTPHeader]) throws(FirestoreError) -> any ListenCall {
            let call = FakeListenCall(metadata: metadata)
            transport.calls.withLock { $0.append(call) }
            return call
        }

        var activeCallCount: Int { transport.calls.withLock { $0.count } }
    }
}

final class FakeListenCall: ListenCall {
    let metadata: [HTTPHeader]
    let sent = Mutex<[ListenRequest]>([])
    let responses: AsyncThrowingStream<ListenResponse, any Error>
    private let continuation: AsyncThrowingStream<ListenResponse, any Error>.Continuation

    init(metadata: [HTTPHeader]) {
        self.metadata = metadata
        (responses, continuation) = AsyncThrowingStream.makeStream(of: ListenResponse.self, throwing: (any Error).self)
    }

    func send(_ request: ListenRequest) throws(FirestoreError) {
        sent.withLock { $0.append(request) }
    }

    func cancel() {
        continuation.finish(throwing: FirestoreError(code: .cancelled, message: "cancelled"))
    }

    func respond(_ response: ListenResponse) {
        continuation.yield(response)
    }

    /// Ends the call normally (`nil`) or with `error`.
    func end(_ error: FirestoreError?) {
        continuation.finish(throwing: error)
    }
}

/// Helpers for driving a Listen call from a test.
enum ListenTesting {
    static let database = "projects/p/databases/(default)"
    static let apple = "projects/p/databases/(default)/documents/fruits/apple"

    static func client(_ transport: any HTTPTransport) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://replay.invalid/v1/",
            credentials: EmulatorOwnerCredentials(), transport: transport, isEmulator: true)
    }

    static func addApple(resumeToken: [UInt8]? = nil) -> ListenRequest {
        ListenRequest(
            adding: ListenTarget(documents: [apple], targetID: 1, resumePoint: resumeToken.map { .resumeToken($0) }),
            database: database)
    }

    static let appleDocument = Document(
        name: apple, fields: ["name": "Apple"], createTime: ts(100), updateTime: ts(100))

    static func ts(_ seconds: Int64) -> Timestamp {
        Timestamp(uncheckedSeconds: seconds, nanos: 0)
    }

    /// The responses of a documents target that becomes current with one document, then a snapshot point.
    static let appleResponses: [ListenResponse] = [
        .targetChange(ListenTargetChange(kind: .add, targetIDs: [1])),
        .documentChange(ListenDocumentChange(document: appleDocument, targetIDs: [1])),
        .targetChange(ListenTargetChange(kind: .current, targetIDs: [1], resumeToken: [1, 2, 3])),
        .targetChange(ListenTargetChange(kind: .noChange, readTime: ts(101))),
    ]

    /// Every response of `call` until it ends, and the error that ended it (if any); `afterEach` runs after
    /// each response is taken.
    static func collect<Call: ListenCall>(_ call: Call, afterEach: () -> Void = {}) async -> (
        [ListenResponse], FirestoreError?
    ) {
        var taken: [ListenResponse] = []
        var iterator = call.responses.makeAsyncIterator()
        do {
            while let response = try await iterator.next() {
                taken.append(response)
                afterEach()
            }
            return (taken, nil)
        } catch let error as FirestoreError {
            return (taken, error)
        } catch {
            return (taken, FirestoreError(code: .unknown, message: "\(error)"))
        }
    }

    /// The first `count` responses of `call`.
    static func take<Call: ListenCall>(_ count: Int, from call: Call) async throws -> [ListenResponse] {
        var taken: [ListenResponse] = []
        var iterator = call.responses.makeAsyncIterator()
        while taken.count < count, let response = try await iterator.next() { taken.append(response) }
        return taken
    }
}
