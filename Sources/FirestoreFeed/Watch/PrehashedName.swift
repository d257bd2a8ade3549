import FirestoreREST

/// A document name with its hash taken once: the key of ``WatchPendingChanges``' table.
///
/// A table keyed by the names themselves reads the bytes of other names whenever a probe meets an occupied slot and
/// every name again each time it grows (a rehash): at a 100,000-document first snapshot those names were written long
/// before and are out of the cache, and buffering cost twice as much per document as at 10,000. This key carries its
/// hash inline, so growing reads no name and a probe compares names only when the hashes are equal.
package struct PrehashedName: Hashable, Sendable {
    /// The name.
    package let name: ByteExactName
    /// `name`'s hash value in this process (``ByteExactName/hash(into:)``).
    private let hash: Int

    /// Takes `name`'s hash.
    /// - Complexity: O(32): the length and the last 32 bytes are hashed.
    package init(_ name: ByteExactName) {
        self.name = name
        self.hash = name.hashValue
    }

    /// Equal names: the hashes first, then every byte.
    package static func == (lhs: PrehashedName, rhs: PrehashedName) -> Bool {
        lhs.hash == rhs.hash && lhs.name == rhs.name
    }

    /// The stored hash; reads none of the name.
    package func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
