/// A resource name compared and hashed by its UTF-8 bytes. Swift's `String` equality is canonical
/// equivalence, under which `c/é` (U+00E9) and `c/e\u{301}` are equal, but Firestore holds them as two
/// documents; keying by bytes keeps them apart.
public struct ByteExactName: Hashable, Sendable {
    /// The resource name.
    public let name: String

    /// Wraps `name`.
    public init(name: String) { self.name = name }

    public static func == (lhs: ByteExactName, rhs: ByteExactName) -> Bool {
        lhs.name.utf8.elementsEqual(rhs.name.utf8)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name.utf8.count)
        for byte in name.utf8 { hasher.combine(byte) }
    }
}
