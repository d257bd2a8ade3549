import FirestoreREST
import Foundation
import Synchronization

/// A transport that answers from a script, one entry per request, and records the requests it saw.
final class ScriptedTransport: HTTPTransport {
    enum Answer: Sendable {
        case response(status: Int, body: String)
        case responseWithHeaders(status: Int, headers: [HTTPHeader], body: String)
        case failure(FirestoreError)
    }

    private let state: Mutex<(answers: [Answer], requests: [HTTPRequest])>

    init(_ answers: [Answer]) { state = Mutex((answers, [])) }

    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let answer: Answer? = state.withLock { state in
            state.requests.append(request)
            return state.answers.isEmpty ? nil : state.answers.removeFirst()
        }
        switch answer {
        case .response(let status, let body)?: return HTTPResponse(status: status, body: Data(body.utf8))
        case .responseWithHeaders(let status, let headers, let body)?:
            return HTTPResponse(status: status, headers: headers, body: Data(body.utf8))
        case .failure(let error)?: throw error
        case nil: throw FirestoreError(code: .unavailable, message: "script exhausted")
        }
    }
}

/// A clock whose sleeps return at once (time jumps forward), so poll loops run without real waiting.
final class ImmediateClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        var offset: Duration
        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Duration.zero)
    private let sleeps = Atomic<Int>(0)
    private let requested = Mutex<[Duration]>([])

    /// Every delay a poller asked to sleep, in order.
    var requestedDelays: [Duration] { requested.withLock { $0 } }

    var now: Instant { Instant(offset: current.withLock { $0 }) }
    var minimumResolution: Duration { .nanoseconds(1) }
    /// How many times a poller slept on this clock.
    var sleepCount: Int { sleeps.load(ordering: .relaxed) }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        try Task.checkCancellation()
        current.withLock { now in
            requested.withLock { $0.append(deadline.offset - now) }
            now = max(now, deadline.offset)
        }
        sleeps.add(1, ordering: .relaxed)
        await Task.yield()
    }
}


/// runQuery response bodies, written as the emulator writes them.
enum RunQueryBody {
    static let root = "projects/p/databases/(default)/documents"

    /// `[{"document":...,"readTime":...},...]`, or `[{"readTime","done":true}]` when empty.
    static func make(readTime: String, _ documents: [(id: String, updateTime: String, name: String)]) -> String {
        if documents.isEmpty { return #"[{"readTime":"\#(readTime)","done":true}]"# }
        let rows = documents.map { document in
            #"{"document":{"name":"\#(root)/fruits/\#(document.id)","fields":{"name":{"stringValue":"\#(document.name)"}},"#
                + #""createTime":"2024-05-01T00:00:00Z","updateTime":"\#(document.updateTime)"},"readTime":"\#(readTime)"}"#
        }
        return "[" + rows.joined(separator: ",\n") + "]"
    }
}

extension RunQueryBody {
    /// A keys-only runQuery response (`select: [__name__]`): names and times, no fields.
    static func keys(readTime: String, _ documents: [(id: String, updateTime: String)]) -> String {
        if documents.isEmpty { return #"[{"readTime":"\#(readTime)","done":true}]"# }
        let rows = documents.map { document in
            #"{"document":{"name":"\#(root)/fruits/\#(document.id)","createTime":"2024-05-01T00:00:00Z","#
                + #""updateTime":"\#(document.updateTime)"},"readTime":"\#(readTime)"}"#
        }
        return "[" + rows.joined(separator: ",\n") + "]"
    }

    /// A batchGet response finding each document.
    static func batchGet(readTime: String, _ documents: [(id: String, updateTime: String, name: String)]) -> String {
        let rows = documents.map { document in
            #"{"found":{"name":"\#(root)/fruits/\#(document.id)","fields":{"name":{"stringValue":"\#(document.name)"}},"#
                + #""createTime":"2024-05-01T00:00:00Z","updateTime":"\#(document.updateTime)"},"readTime":"\#(readTime)"}"#
        }
        return "[" + rows.joined(separator: ",\n") + "]"
    }
}
