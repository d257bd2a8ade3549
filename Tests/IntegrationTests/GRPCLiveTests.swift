import FirestoreFeed
import FirestoreTestSupport
import Foundation
import Synchronization
import Testing

@testable import FirestoreREST

/// The gRPC transport (`GRPCChannel`, `GRPCStreamingCall`) against the real emulator, which serves gRPC over
/// cleartext HTTP/2 on its REST port. Request messages are built by hand (`HandProto`); expected response
/// bytes are written out from `google/firestore/v1/firestore.proto`.
@Suite("GRPC live", .timeLimit(.minutes(2)))
struct GRPCLiveTests {
    /// `ListenResponse { target_change = 2: TargetChange { target_change_type = 1: ADD (1); target_ids = 2:
    /// [id] (packed) } }`.
    private static func targetAdded(_ id: UInt8) -> [UInt8] { [0x12, 0x05, 0x08, 0x01, 0x12, 0x01, id] }

    private func documentName(_ db: Firestore, _ path: String) throws -> String {
        db.database.resourceName(of: try ResourcePath(path))
    }

    /// Waits (without blocking a thread) until `condition` holds, for at most `seconds`.
    private func eventually(within seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(Int(seconds * 1000))
        while !condition() {
            if clock.now >= deadline { return condition() }
            try await Task.sleep(for: .milliseconds(5))
        }
        return true
    }

    @Test func unaryGetDocumentReturnsTheDocumentNamedFirst() async throws {
        let db = try LiveFirestore.make("grpc-get")
        try await db.document("c/d").setData(["n": 1])
        let channel = try db.makeGRPCChannel()
        let name = try documentName(db, "c/d")
        let start = ContinuousClock.now
        let document = try await channel.unary(
            method: FirestoreGRPCMethod.getDocument, request: HandProto.getDocumentRequest(name: name),
            metadata: try await db.grpcMetadata())
        print("GRPC unary GetDocument round trip:", ContinuousClock.now - start)
        // Document.name is field 1, length-delimited: tag 0x0A, a one-byte length (< 128), then the name.
        let nameBytes = Array(name.utf8)
        #expect(nameBytes.count < 128)
        #expect(document.count > 2 + nameBytes.count)
        #expect(Array(document.prefix(2)) == [0x0A, UInt8(nameBytes.count)])
        #expect(Array(document[2..<(2 + nameBytes.count)]) == nameBytes)
    }

    @Test func missingDocumentIsNotFoundWithTheServersMessage() async throws {
        let db = try LiveFirestore.make("grpc-missing")
        let channel = try db.makeGRPCChannel()
        let name = try documentName(db, "c/nothing")
        let error = try await #require(throws: FirestoreError.self) {
            _ = try await channel.unary(
                method: FirestoreGRPCMethod.getDocument, request: HandProto.getDocumentRequest(name: name),
                metadata: try await db.grpcMetadata())
        }
        #expect(error.code == .notFound)
        #expect(error.message == "Document (\(name)) not found.")
        #expect(error.isServerStatus)
    }

    @Test func listenStreamsWhileTheRequestSideStaysOpenAndAnswersASecondTarget() async throws {
        let db = try LiveFirestore.make("grpc-listen")
        try await db.document("c/d").setData(["n": 1])
        let channel = try db.makeGRPCChannel()
        let call = try channel.makeCall(method: FirestoreGRPCMethod.listen, metadata: try await db.grpcMetadata())
        let name = try documentName(db, "c/d")
        let clock = ContinuousClock()
        var start = clock.now
        try call.send(HandProto.listenRequest(database: db.database.name, documents: [name], targetID: 1))
        var responses = call.responses.makeAsyncIterator()
        #expect(try await responses.next() == Self.targetAdded(1))
        print("GRPC Listen: send to first response (target 1 ADD):", clock.now - start)
        // Then the document: ListenResponse.document_change (field 3, tag 0x1A) holding Document.name.
        let change = try #require(try await responses.next())
        #expect(change.first == 0x1A)
        #expect(HandProto.contains(change, [0x0A, UInt8(name.utf8.count)] + Array(name.utf8)))
        #expect(call.responseHead?.status == 200)
        #expect(call.responseHead?.value(for: "content-type") == "application/grpc")
        #expect(!call.hasEnded)

        // A second target on the same open stream.
        start = clock.now
        try call.send(
            HandProto.listenRequest(database: db.database.name, documents: [try documentName(db, "c/e")], targetID: 2))
        var sawSecondTarget = false
        while let message = try await responses.next() {
            if message == Self.targetAdded(2) {
                sawSecondTarget = true
                break
            }
        }
        print("GRPC Listen: second send on the open stream to its ADD:", clock.now - start)
        #expect(sawSecondTarget)
        call.cancel()
    }

    @Test func cancelEndsTheCallWithinOneSecondAndFreesIt() async throws {
        let db = try LiveFirestore.make("grpc-cancel")
        let channel = try db.makeGRPCChannel()
        let call = try channel.makeCall(method: FirestoreGRPCMethod.listen, metadata: try await db.grpcMetadata())
        try call.send(
            HandProto.listenRequest(
                database: db.database.name, documents: [try documentName(db, "c/d")], targetID: 1))
        var responses = call.responses.makeAsyncIterator()
        #expect(try await responses.next() == Self.targetAdded(1))
        #expect(channel.activeCallCount == 1)
        let clock = ContinuousClock()
        let start = clock.now
        call.cancel()
        var error: FirestoreError?
        do {
            while try await responses.next() != nil {}
        } catch let caught as FirestoreError {
            error = caught
        }
        let ended = clock.now - start
        #expect(try await eventually(within: 30) { channel.activeCallCount == 0 })
        print("GRPC cancel: stream ended after", ended, "handle freed after", clock.now - start)
        #expect(error?.code == .cancelled)
        #expect(call.hasEnded)
        #expect(throws: Never.self) { try call.send([0x01]) }  // dropped: the call has ended
    }

    @Test func cancellingTheConsumingTaskEndsTheCall() async throws {
        let db = try LiveFirestore.make("grpc-task")
        let channel = try db.makeGRPCChannel()
        let call = try channel.makeCall(method: FirestoreGRPCMethod.listen, metadata: try await db.grpcMetadata())
        try call.send(
            HandProto.listenRequest(
                database: db.database.name, documents: [try documentName(db, "c/d")], targetID: 1))
        let received = Atomic<Int>(0)
        let consumer = Task {
            for try await _ in call.responses { received.add(1, ordering: .relaxed) }
        }
        // The first response (the target's ADD) proves the stream is open mid-call; a loaded emulator may take
        // seconds to send it.
        #expect(try await eventually(within: 60) { received.load(ordering: .relaxed) >= 1 })
        consumer.cancel()
        let error = await #expect(throws: FirestoreError.self) { try await consumer.value }
        #expect(error?.code == .cancelled)
        // Promptly, not at the stream's end (it never ends by itself); how promptly is a benchmark's business, not
        // a loaded test machine's.
        #expect(try await eventually(within: 30) { channel.activeCallCount == 0 })
        #expect(call.hasEnded)
    }

    @Test func twoConcurrentCallsShareOneConnection() async throws {
        let db = try LiveFirestore.make("grpc-mux")
        let channel = try db.makeGRPCChannel()
        let metadata = try await db.grpcMetadata()
        var calls: [GRPCStreamingCall] = []
        for id in 1...3 {
            let call = try channel.makeCall(method: FirestoreGRPCMethod.listen, metadata: metadata)
            try call.send(
                HandProto.listenRequest(
                    database: db.database.name, documents: [try documentName(db, "c/d\(id)")], targetID: id))
            var responses = call.responses.makeAsyncIterator()
            #expect(try await responses.next() == Self.targetAdded(UInt8(id)))
            calls.append(call)
        }
        #expect(channel.activeCallCount == 3)
        for call in calls { call.cancel() }
        #expect(try await eventually(within: 30) { channel.activeCallCount == 0 })
        #expect(calls.map(\.connectionsOpened) == [1, 0, 0])
        #expect(channel.openedConnectionCount == 1)
    }

    @Test func boundedReceiveBufferPausesAndResumesWithoutLosingMessages() async throws {
        let db = try LiveFirestore.make("grpc-buffer")
        let batch = db.batch()
        let padding = String(repeating: "x", count: 2000)
        for index in 0..<20 {
            try batch.setData(
                ["i": .value(.integer(Int64(index))), "pad": .value(.string(padding))],
                forDocument: db.document("c/d\(index)"))
        }
        try await batch.commit()
        // Room for one message: the write callback pauses the stream after each message until it is consumed.
        let channel = try db.makeGRPCChannel(configuration: .init(maxBufferedResponseBytes: 1))
        let call = try channel.makeCall(method: FirestoreGRPCMethod.listen, metadata: try await db.grpcMetadata())
        let names = try (0..<20).map { try documentName(db, "c/d\($0)") }
        try call.send(HandProto.listenRequest(database: db.database.name, documents: names, targetID: 1))
        var documents = 0
        for try await message in call.responses {
            if message.first == 0x1A { documents += 1 }
            // TargetChange CURRENT (type 3) for target 1: every document was sent.
            if message.count > 2, message[0] == 0x12, message[2...].starts(with: [0x08, 0x03]) {
                break
            }
            try await Task.sleep(for: .milliseconds(2))
        }
        #expect(documents == 20)
        call.cancel()
    }
}
