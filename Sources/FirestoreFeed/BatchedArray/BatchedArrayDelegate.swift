import FirestoreREST

/// Receives a ``BatchedArray``'s events: FirebaseUI's `FUIBatchedArrayDelegate`
/// (FirebaseUI-iOS), with its defects fixed (`BatchedArrayTests.a1WillUpdateShowsOldContentsAndUpdatesNeverOverlap`).
///
/// Calls are made one at a time, in order, never re-entrantly, on the array's delivery task (not the main
/// thread). For each update: ``batchedArray(_:willUpdateWith:)`` while ``BatchedArray/items`` still holds the
/// old contents, then the items are replaced, then ``batchedArray(_:didUpdateWith:)``. An error is reported
/// with ``batchedArray(_:queryDidFailWithError:)`` and never changes the items. Every method has an empty
/// default implementation. A delegate may call the array (read `items`, `stopObserving()`, replace the
/// source) from inside a callback; an update that has begun always completes.
public protocol BatchedArrayDelegate: AnyObject, Sendable {
    /// An update is about to be applied; `array.items` and `array.count` still show `diff.initial`.
    func batchedArray(_ array: BatchedArray, willUpdateWith diff: SnapshotArrayDiff<DocumentSnapshot>)
    /// An update was applied; `array.items` now equals `diff.result`.
    func batchedArray(_ array: BatchedArray, didUpdateWith diff: SnapshotArrayDiff<DocumentSnapshot>)
    /// The source reported an error (a failed poll, or the error that ended the listen); the items are unchanged.
    func batchedArray(_ array: BatchedArray, queryDidFailWithError error: any Error)
}

extension BatchedArrayDelegate {
    public func batchedArray(_ array: BatchedArray, willUpdateWith diff: SnapshotArrayDiff<DocumentSnapshot>) {}
    public func batchedArray(_ array: BatchedArray, didUpdateWith diff: SnapshotArrayDiff<DocumentSnapshot>) {}
    public func batchedArray(_ array: BatchedArray, queryDidFailWithError error: any Error) {}
}
