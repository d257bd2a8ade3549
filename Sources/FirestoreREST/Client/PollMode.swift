/// How a change feed fetches each poll's result.
public enum PollMode: String, Sendable, Hashable, CaseIterable {
    /// Two phases (the default): runQuery with `select: [__name__]` returns every matching document's name,
    /// `createTime` and `updateTime` in query order, and no fields; then one batchGet at the same `readTime`
    /// fetches only the documents that are new or whose `updateTime` moved. The snapshot is consistent (one
    /// read time) and an unchanged poll costs a fraction of the bytes.
    case keys
    /// One runQuery returning whole documents every poll.
    case fullDocuments = "full"
}
