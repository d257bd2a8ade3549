import FirestoreWire

/// A resource name compared and hashed by its UTF-8 bytes. Swift's `String` equality is canonical
/// equivalence, under which `c/é` (U+00E9) and `c/e\u{301}` are equal, but Firestore holds them as two
/// documents; keying by bytes keeps them apart. Equality is ``Swift/String/utf8Equals(_:)``, the rule every
/// comparison of Firestore data follows (``FirestoreValue``, ``Document``); the change feed keys documents by it, and a
/// `batchGet` response its found documents.
package struct ByteExactName: Hashable, Sendable, ExpressibleByStringLiteral {
    /// The resource name.
    package let name: String

    /// Wraps `name`.
    package init(name: String) { self.name = name }

    /// Wraps a literal name.
    package init(stringLiteral name: String) { self.name = name }

    package static func == (lhs: ByteExactName, rhs: ByteExactName) -> Bool { lhs.name.utf8Equals(rhs.name) }

    /// Hashes the length and the last 32 bytes: names in one result share their long prefix
    /// (`projects/…/documents/collection/`) and differ at the end, so the tail carries the entropy at a fraction
    /// of the cost; equality still compares every byte.
    package func hash(into hasher: inout Hasher) {
        let hashed: Void? = name.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(32))))
        }
        if hashed == nil {
            for byte in name.utf8 { hasher.combine(byte) }
        }
    }
}
