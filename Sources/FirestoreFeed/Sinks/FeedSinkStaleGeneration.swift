/// The error a ``FeedSink`` throws for a batch whose generation is below the one it holds for the batch's shard: the
/// writer lost the shard's lease (it was paused or partitioned past it) and another member has written since. Nothing
/// of the batch was applied; the writer must stop delivering the shard.
public struct FeedSinkStaleGeneration: Error, Sendable, Hashable, CustomStringConvertible {
    /// Where the sink is (its file and table).
    public let sink: String
    /// The batch's shard.
    public let shard: Int
    /// The batch's generation.
    public let generation: Int64
    /// The generation the sink holds for the shard.
    public let storedGeneration: Int64

    public init(sink: String, shard: Int, generation: Int64, storedGeneration: Int64) {
        self.sink = sink
        self.shard = shard
        self.generation = generation
        self.storedGeneration = storedGeneration
    }

    public var description: String {
        "\(sink): shard \(shard): refused a batch of generation \(generation), below the generation "
            + "\(storedGeneration) stored for the shard (a stale writer: its lease passed to another member)"
    }
}
