import FirestoreREST
import FirestoreTestSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The end of a publish-group chaos run: waited for until every final version and removal the members could know
/// of arrived (90 s at most), then the members SIGTERMed and the consumer stopped, and the figures of what it got.
struct PublishGroupOutcome {
    /// The query's documents at the end.
    let expected: [String: (updateTime: String, fields: JSONValue)]
    /// Whether everything arrived before the members were stopped.
    let complete: Bool
    /// Each member's exit, by ID.
    let results: [String: CLIProcess.Result]
    let delivered: [DeliveredMessage]
    let consumed: CLIProcess.Result
    let figures: PublishChaosFigures
    let generations: GenerationFigures

    /// Ends the run of `members` (whose earlier runs' stderr is `earlier`) on `setup`'s project and topic.
    init(_ setup: PublishChaosSetup, members: [(id: String, process: CLIProcess)], earlier: [String] = []) async throws
    {
        let expected = try await PublishChaosFigures.expected(setup.items.query)
        let consumer = setup.consumer
        complete = await eventuallyAsync(seconds: 90) {
            let stderr = earlier + members.map { String(decoding: $0.process.stderr.data, as: UTF8.self) }
            return PublishChaosFigures(
                consumer.messages(), expected: expected, accepted: PublishChaosFigures.acceptedReadTimes(stderr)
            ).complete
        }
        for member in members { kill(member.process.process.processIdentifier, SIGTERM) }
        var results: [String: CLIProcess.Result] = [:]
        for member in members { results[member.id] = await member.process.finish(timeout: 60) }
        delivered = consumer.messages()
        consumed = await consumer.stop()
        figures = PublishChaosFigures(
            delivered, expected: expected,
            accepted: PublishChaosFigures.acceptedReadTimes(earlier + results.values.map(\.stderr)))
        generations = GenerationFigures(delivered, expected: expected)
        self.expected = expected
        self.results = results
    }
}
