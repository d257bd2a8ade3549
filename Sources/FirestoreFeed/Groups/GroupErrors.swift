import FirestoreREST

/// Typed throws around the untyped calls (reads, commits, queries) a feed group makes.
enum GroupErrors {
    /// `body`'s result, or its error as a `FirestoreError` (``FirestoreError/init(wrapping:)``).
    static func typed<T>(_ body: () async throws -> T) async throws(FirestoreError) -> T {
        do {
            return try await body()
        } catch {
            throw FirestoreError(wrapping: error)
        }
    }
}
