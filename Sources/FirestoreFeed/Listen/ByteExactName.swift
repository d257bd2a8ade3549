import Foundation

/// A resource name compared and hashed by its UTF-8 bytes. Swift's `String` equality is canonical
/// equivalence, under which `c/é` (U+00E9) and `c/e\u{301}` are equal, but Firestore holds them as two
/// documents; keying by bytes keeps them apart.
public struct ByteExactName: Hashable, Sendable {
    /// The resource name.
    public let name: String

    /// Wraps `name`.
    public init(name: String) { self.name = name }

    public static func == (lhs: ByteExactName, rhs: ByteExactName) -> Bool {
        guard lhs.name.utf8.count == rhs.name.utf8.count else { return false }
        let fast = lhs.name.utf8.withContiguousStorageIfAvailable { left in
            rhs.name.utf8.withContiguousStorageIfAvailable { right in
                guard let a = left.baseAddress, let b = right.baseAddress else { return left.count == right.count }
                return memcmp(a, b, left.count) == 0
            }
        }
        return (fast ?? nil) ?? lhs.name.utf8.elementsEqual(rhs.name.utf8)
    }

    /// Hashes the length and the last 32 bytes: names in one result share their long prefix
    /// (`projects/…/documents/collection/`) and differ at the end, so the tail carries the entropy at a fraction
    /// of the cost; equality still compares every byte.
    public func hash(into hasher: inout Hasher) {
        let hashed: Void? = name.utf8.withContiguousStorageIfAvailable { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(32))))
        }
        if hashed == nil {
            for byte in name.utf8 { hasher.combine(byte) }
        }
    }
}
