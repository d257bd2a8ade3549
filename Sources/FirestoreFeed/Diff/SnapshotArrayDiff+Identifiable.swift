extension SnapshotArrayDiff where Element: Identifiable & Equatable {
    /// The diff from `initial` to `result` for elements identified by `id` and compared by `==`: two elements
    /// with equal `id`s are the same element, changed when they are not `==`.
    /// - Complexity: O(n + m) hash-map operations plus O(k log k) for k retained elements (see
    ///   ``SnapshotArrayDiff``).
    @inlinable
    public init(initial: [Element], result: [Element]) {
        self.init(initial: initial, result: result, identity: { $0.id }, contentEquals: { $0 == $1 })
    }
}
