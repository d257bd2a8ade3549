import FirestoreWire

/// What the server said about one write of a commit, as the server SDKs return it (Node `WriteResult`, REST
/// `WriteResult`: https://cloud.google.com/firestore/docs/reference/rest/v1/WriteResult).
///
/// ```swift
/// let visits = db.document("counters/visits")
/// let result = try await visits.updateData(["n": .increment(Int64(1)), "at": .serverTimestamp()])
/// result.transformResults   // [.timestamp(...), .integer(42)]: the server time, the counter after the increment
/// ```
///
/// The results follow the write's transforms, which ``DocumentReference`` and ``WriteBatch`` send sorted by
/// field path (`at` before `n`).
///
/// `WriteResultLiveTests` pins the emulator's answers: `increment`, `maximum` and `minimum` give the field's new
/// value, `serverTimestamp()` the time it wrote (millisecond precision, and on the emulator earlier than
/// `updateTime`), `arrayUnion` and `arrayRemove` give `null`.
public struct WriteResult: Sendable, Hashable {
    /// The document's `updateTime` after the write (the previous one when the write changed nothing); `nil`
    /// after a delete, for which the server sends none.
    public let updateTime: Timestamp?
    /// When the write happened, as the Node SDK's `writeTime`: ``updateTime``, or the commit's `commitTime`
    /// for a delete.
    public let writeTime: Timestamp
    /// The result of each field transform of the write (`serverTimestamp()`, `increment`, `maximum`, `minimum`,
    /// `arrayUnion`, `arrayRemove`), in the order of the write's `updateTransforms`; empty without transforms.
    public let transformResults: [FirestoreValue]

    /// A result as the server would send it.
    public init(updateTime: Timestamp?, writeTime: Timestamp, transformResults: [FirestoreValue] = []) {
        self.updateTime = updateTime
        self.writeTime = writeTime
        self.transformResults = transformResults
    }
}
