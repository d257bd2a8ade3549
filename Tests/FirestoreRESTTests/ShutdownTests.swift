import FirestoreREST
import FirestoreTestSupport
import Testing

/// `Firestore.shutdown()` without a server: a request in flight (a transport that never answers) ends with the
/// client's shutdown error, later calls fail at once with it, the client's copies are shut down with it, and a second
/// shutdown returns. `ShutdownLiveTests` does the same against the emulator and counts threads and descriptors.
@Suite(.timeLimit(.minutes(2))) struct ShutdownTests {
    static let message =
        "the Firestore client of projects/p/databases/(default) was shut down (Firestore.shutdown()); "
        + "make a new client to go on"

    @Test func aRequestInFlightEndsWithTheShutdownErrorAndLaterCallsFailAtOnce() async throws {
        let transport = UnansweredTransport()
        let db = try Firestore.offline(transport: transport)
        let copy = db.using(protocol: .rest)
        let read = Task { () -> FirestoreError? in
            do {
                _ = try await copy.document("fruits/apple").getDocument()
                return nil
            } catch {
                return error as? FirestoreError
            }
        }
        #expect(await eventually(seconds: 60) { transport.waitingCount == 1 })
        #expect(!db.isShutDown)
        await db.shutdown()
        let failure = await read.value
        #expect(failure?.code == .cancelled)
        #expect(failure?.message == Self.message)
        #expect(transport.waitingCount == 0)
        #expect(db.isShutDown && copy.isShutDown)

        // Later calls, of the client and of a copy made before, fail at once without a request.
        await #expect(throws: FirestoreError(code: .cancelled, message: Self.message)) {
            try await db.collection("fruits").getDocuments()
        }
        await #expect(throws: FirestoreError(code: .cancelled, message: Self.message)) {
            try await copy.document("fruits/apple").setData(["name": "Apple"])
        }
        #expect(transport.sentCount == 1)
        await db.shutdown()
        #expect(db.isShutDown)
    }

    @Test func concurrentShutdownsAllReturnOnceTheFirstHasFinished() async throws {
        let transport = UnansweredTransport()
        let db = try Firestore.offline(transport: transport)
        let reads = (0..<3).map { _ in
            Task { try? await db.document("fruits/apple").getDocument() }
        }
        #expect(await eventually(seconds: 60) { transport.waitingCount == 3 })
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<4 { group.addTask { await db.shutdown() } }
        }
        #expect(transport.waitingCount == 0)
        for read in reads { #expect(await read.value == nil) }
    }
}
