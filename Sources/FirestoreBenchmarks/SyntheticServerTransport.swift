import FirestoreFeed
import FirestoreREST
import Synchronization

/// An in-process server for `listen-first-snapshot` and `mirror-tail-synthetic`: the Listen call answers its first
/// `add_target` with a target `ADD`, `count` `DocumentChange`s, a `CURRENT` and a `NO_CHANGE` with a read time, then,
/// with a ``SyntheticTail``, its paced changes; a runQuery call answers with `count` `RunQueryResponse`s. Messages are
/// made by writing each document's number into a serialized template (a copy of about 200 bytes), so what is
/// measured is the client's decoding and what follows.
final class SyntheticServerTransport: ListenTransport, RPCTransport {
    static let project = "bench"
    static let collection = "items"
    static let root = "projects/\(project)/databases/(default)/documents"
    /// Digits of the document number in its ID (`item0000042`).
    static let digits = 7

    let count: Int
    /// What the Listen call sends after its first snapshot (nothing when `nil`).
    let tail: SyntheticTail?

    init(count: Int, tail: SyntheticTail? = nil) { (self.count, self.tail) = (count, tail) }

    var rpcTimeout: Double? { nil }
    var rpcConcurrency: Int { 4 }

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        throw FirestoreError(code: .unimplemented, message: "synthetic server: gRPC only")
    }

    func makeListenChannel(for firestore: Firestore) throws(FirestoreError) -> any ListenChannel {
        Channel(count: count, tail: tail)
    }

    func makeRPCChannel(for firestore: Firestore) throws(FirestoreError) -> any RPCChannel {
        Channel(count: count, tail: tail)
    }

    /// The ID of document `index` (`item0000042`).
    static func id(_ index: Int) -> String {
        let number = String(index)
        return "item" + String(repeating: "0", count: max(0, digits - number.count)) + number
    }

    /// Document `index`: five fields of mixed types (about 100 bytes of protobuf), as the `query` workload seeds.
    static func document(_ index: Int) -> Document {
        let id = id(index)
        let time = (try? Timestamp(seconds: 1_714_566_896, nanos: 123_456_000)) ?? .minimum
        return Document(
            name: "\(root)/\(collection)/\(id)",
            fields: [
                "title": .string("Item number \(id)"), "count": .integer(42), "price": .double(12.5),
                "active": .boolean(true), "tags": .array([.string("alpha"), .string("beta")]),
            ],
            createTime: time, updateTime: time)
    }

    /// A serialized message holding document 0, and where its number's digits are (each occurrence of the ID).
    struct Template {
        var bytes: [UInt8]
        var digitOffsets: [Int]

        init(_ write: (inout ProtobufWriter, Document) -> Void) {
            var writer = ProtobufWriter()
            write(&writer, SyntheticServerTransport.document(0))
            bytes = writer.bytes
            let needle = Array("item" + String(repeating: "0", count: SyntheticServerTransport.digits)).map {
                $0.asciiValue ?? 0
            }
            digitOffsets = []
            var offset = 0
            while offset + needle.count <= bytes.count {
                if bytes[offset..<offset + needle.count].elementsEqual(needle) { digitOffsets.append(offset + 4) }
                offset += 1
            }
        }

        /// The message for document `index`.
        func message(_ index: Int) -> [UInt8] {
            var message = bytes
            for start in digitOffsets {
                var value = index
                for position in stride(from: start + SyntheticServerTransport.digits - 1, through: start, by: -1) {
                    message[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            return message
        }
    }

    static let readTime = (try? Timestamp(seconds: 1_714_567_000, nanos: 0)) ?? .minimum

    final class Channel: ListenChannel, RPCChannel {
        let count: Int
        let tail: SyntheticTail?
        init(count: Int, tail: SyntheticTail?) { (self.count, self.tail) = (count, tail) }

        var activeCallCount: Int { 0 }

        func makeListenCall(metadata: [HTTPHeader]) throws(FirestoreError) -> any ListenCall {
            SyntheticListenCall(count: count, tail: tail)
        }

        func makeRPCCall(method: String, request: [UInt8], metadata: [HTTPHeader], timeout: Double?)
            throws(FirestoreError) -> any RPCCall
        {
            guard method == FirestoreGRPCMethod.runQuery else {
                throw FirestoreError(code: .unimplemented, message: "synthetic server: no \(method)")
            }
            return SyntheticRunQueryCall(count: count)
        }

        func close() async {}
    }
}

/// The Listen call of ``SyntheticServerTransport``.
final class SyntheticListenCall: ListenCall {
    let count: Int
    let tail: SyntheticTail?
    /// The target IDs the client adds; finished by ``cancel()``.
    private let added: AsyncStream<Int32>
    private let addedContinuation: AsyncStream<Int32>.Continuation
    /// Set by ``cancel()``: the paced tail stops at its next message.
    private let ended = Mutex(false)

    init(count: Int, tail: SyntheticTail? = nil) {
        (self.count, self.tail) = (count, tail)
        (added, addedContinuation) = AsyncStream<Int32>.makeStream()
    }

    func send(_ request: ListenRequest) throws(FirestoreError) {
        if case .add(let target) = request.targetChange { addedContinuation.yield(target.targetID) }
    }

    func cancel() {
        ended.withLock { $0 = true }
        addedContinuation.finish()
    }

    var responses: Responses {
        Responses(count: count, added: added, tail: tail.map { SyntheticTail.Pacer($0) }) { [self] in
            ended.withLock { $0 }
        }
    }

    struct Responses: AsyncSequence, Sendable {
        typealias Element = ListenResponse
        typealias Failure = any Error
        let count: Int
        let added: AsyncStream<Int32>
        let tail: SyntheticTail.Pacer?
        let isEnded: @Sendable () -> Bool

        func makeAsyncIterator() -> Iterator {
            Iterator(count: count, added: added.makeAsyncIterator(), tail: tail, isEnded: isEnded)
        }
    }

    struct Iterator: AsyncIteratorProtocol {
        let count: Int
        var added: AsyncStream<Int32>.AsyncIterator
        /// The paced changes after the first snapshot, if any.
        var tail: SyntheticTail.Pacer?
        let isEnded: @Sendable () -> Bool
        var targetID: Int32?
        var template: SyntheticServerTransport.Template?
        /// 0: the ADD; 1...count: documents; then CURRENT, NO_CHANGE, then the tail's messages, then nothing until
        /// cancelled.
        var step = 0

        mutating func next() async throws -> ListenResponse? {
            if targetID == nil {
                guard let id = await added.next() else { throw Self.cancelled }
                targetID = id
                template = SyntheticServerTransport.Template { writer, document in
                    writer.writeMessageField(3) { change in
                        change.writeMessageField(1) { document.writeProtobuf(to: &$0) }
                        change.writeInt32Field(5, id)
                    }
                }
            }
            guard let targetID, let template else { throw Self.cancelled }
            defer { step += 1 }
            var writer = ProtobufWriter()
            switch step {
            case 0:
                writer.writeMessageField(2) { change in
                    change.writeInt32Field(1, ListenTargetChange.Kind.add.rawValue)
                    change.writeInt32Field(2, targetID)
                }
            case 1...count:
                return try ListenResponse(protobuf: template.message(step - 1))
            case count + 1:
                writer.writeMessageField(2) { change in
                    change.writeInt32Field(1, ListenTargetChange.Kind.current.rawValue)
                    change.writeInt32Field(2, targetID)
                    change.writeBytesField(4, [1, 2, 3])
                }
            case count + 2:
                writer.writeMessageField(2) { change in
                    change.writeBytesField(4, [1, 2, 4])
                    change.writeMessageField(6) { SyntheticServerTransport.readTime.writeProtobuf(to: &$0) }
                }
            default:
                let isEnded = isEnded
                if tail != nil, let message = try await tail?.next(targetID: targetID, isEnded: isEnded) {
                    return message
                }
                // Quiet until the client ends the call (other targets it adds, such as liveness probes, go unanswered).
                while await added.next() != nil {}
                throw Self.cancelled
            }
            return try ListenResponse(protobuf: writer.bytes)
        }

        static var cancelled: FirestoreError {
            FirestoreError(code: .cancelled, message: "synthetic Listen call ended")
        }
    }
}

/// The runQuery call of ``SyntheticServerTransport``: `count` messages, then the end.
final class SyntheticRunQueryCall: RPCCall {
    let count: Int
    private let cancelled = Mutex(false)

    init(count: Int) { self.count = count }

    func cancel() { cancelled.withLock { $0 = true } }

    var responses: Responses {
        Responses(
            count: count,
            template: SyntheticServerTransport.Template { writer, document in
                writer.writeMessageField(1) { document.writeProtobuf(to: &$0) }
                writer.writeMessageField(3) { SyntheticServerTransport.readTime.writeProtobuf(to: &$0) }
            })
    }

    struct Responses: AsyncSequence, Sendable {
        typealias Element = [UInt8]
        typealias Failure = any Error
        let count: Int
        let template: SyntheticServerTransport.Template

        func makeAsyncIterator() -> Iterator { Iterator(count: count, template: template) }
    }

    struct Iterator: AsyncIteratorProtocol {
        let count: Int
        let template: SyntheticServerTransport.Template
        var step = 0

        mutating func next() async throws -> [UInt8]? {
            guard step < count else { return nil }
            defer { step += 1 }
            return template.message(step)
        }
    }
}
