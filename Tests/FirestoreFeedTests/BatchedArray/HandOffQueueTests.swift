import Synchronization
import Testing

@testable import FirestoreFeed

/// The queue between a feed and a slow reader (`QuerySnapshotEvent.relay`, `BatchedArray`'s delivery) stays
/// bounded: a put waits until its element is taken, a posted failure replaces the one not yet taken.
@Suite(.timeLimit(.minutes(2))) struct HandOffQueueTests {
    /// Whenever the producer's next element is in the queue, the producer has returned from exactly the puts
    /// whose elements were taken, and queued nothing more: each put waits until its element is taken.
    @Test func aPutReturnsOnlyOnceItsElementIsTaken() async throws {
        let queue = HandOffQueue<Int>()
        let returned = Mutex<[Int]>([])
        let producer = Task {
            for element in 1...3 {
                await queue.put(element)
                returned.withLock { $0.append(element) }
            }
        }
        for element in 1...3 {
            // At least 30 s: a guard against a hang, never a measure of speed.
            for _ in 0..<30_000 where queue.count == 0 { try await Task.sleep(for: .milliseconds(1)) }
            #expect(queue.count == 1)
            #expect(returned.withLock { $0 } == Array(1..<element))
            #expect(await queue.next() == element)
        }
        await producer.value
        #expect(returned.withLock { $0 } == [1, 2, 3])
        #expect(queue.count == 0)
    }

    @Test func aPostedElementReplacesTheOneItSupersedes() async {
        let queue = HandOffQueue<String>()
        queue.post("failure 1", replacing: { $0.hasPrefix("failure") })
        queue.post("recovered", replacing: { $0 == "recovered" })
        queue.post("failure 2", replacing: { $0.hasPrefix("failure") })
        queue.post("recovered", replacing: { $0 == "recovered" })
        queue.finish()
        queue.post("after the end")
        var taken: [String] = []
        while let element = await queue.next() { taken.append(element) }
        #expect(taken == ["failure 2", "recovered"])
    }

    @Test func aCancelledReaderAndACancelledProducerReturn() async throws {
        let queue = HandOffQueue<Int>()
        let reader = Task { await queue.next() }
        reader.cancel()
        #expect(await reader.value == nil)
        let producer = Task { await queue.put(7) }
        for _ in 0..<30_000 where queue.count == 0 { try? await Task.sleep(for: .milliseconds(1)) }
        try #require(queue.count == 1)
        producer.cancel()
        await producer.value
        #expect(queue.count == 0)
    }
}
