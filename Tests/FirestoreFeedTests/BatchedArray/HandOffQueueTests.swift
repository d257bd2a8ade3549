import Synchronization
import Testing

@testable import FirestoreFeed

/// The queue between a feed and a slow reader (`QuerySnapshotEvent.relay`, `BatchedArray`'s delivery) stays
/// bounded: a put waits until its element is taken, a posted failure replaces the one not yet taken.
@Suite(.timeLimit(.minutes(2))) struct HandOffQueueTests {
    @Test func aPutReturnsOnlyOnceItsElementIsTaken() async throws {
        let queue = HandOffQueue<Int>()
        let returned = Mutex<[Int]>([])
        let producer = Task {
            for element in 1...3 {
                await queue.put(element)
                returned.withLock { $0.append(element) }
            }
        }
        for _ in 0..<30_000 where queue.count == 0 { try await Task.sleep(for: .milliseconds(1)) }
        try await Task.sleep(for: .milliseconds(20))
        #expect(queue.count == 1)
        #expect(returned.withLock { $0 } == [])
        #expect(await queue.next() == 1)
        #expect(await queue.next() == 2)
        #expect(await queue.next() == 3)
        await producer.value
        #expect(returned.withLock { $0 } == [1, 2, 3])
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

    @Test func aCancelledReaderAndACancelledProducerReturn() async {
        let queue = HandOffQueue<Int>()
        let reader = Task { await queue.next() }
        reader.cancel()
        #expect(await reader.value == nil)
        let producer = Task { await queue.put(7) }
        for _ in 0..<30_000 where queue.count == 0 { try? await Task.sleep(for: .milliseconds(1)) }
        producer.cancel()
        await producer.value
        #expect(queue.count == 0)
    }
}
