import FirestoreWire

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Firestore compares strings by their UTF-8 bytes: document names, string values and map keys alike (Firestore
// docs, "Ordering of value types": strings are ordered by UTF-8 encoded bytes). Swift's `String ==` and
// `String.hash(into:)` use canonical equivalence instead, under which `"é"` (U+00E9, NFC) and `"e\u{301}"`
// (NFD) are equal although Firestore holds them as two values, two map keys and two document IDs. Every
// equality and hash of Firestore data goes through these helpers; the rule is pinned by
// `ByteExactEqualityTests`.

extension String {
    /// Whether `self` and `other` hold the same UTF-8 bytes (not merely canonically equivalent text).
    /// - Complexity: O(n) byte comparisons (one `memcmp` for native strings); O(1) when the lengths differ.
    package func utf8Equals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        let fast = utf8.withContiguousStorageIfAvailable { left in
            other.utf8.withContiguousStorageIfAvailable { right in
                guard let a = left.baseAddress, let b = right.baseAddress else { return left.count == right.count }
                // The same storage (copies of one string): equal without reading the bytes.
                return a == b || memcmp(a, b, left.count) == 0
            }
        }
        return (fast ?? nil) ?? utf8.elementsEqual(other.utf8)
    }
}

extension Hasher {
    /// Feeds the UTF-8 bytes of `text` (and its length, so that `["ab", "c"]` and `["a", "bc"]` differ): the
    /// hash that agrees with ``Swift/String/utf8Equals(_:)``.
    package mutating func combineUTF8(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            combine(bytes.count)
            combine(bytes: UnsafeRawBufferPointer(bytes))
        }
    }
}

extension Array where Element == String {
    /// Whether both arrays hold the same strings, compared by their UTF-8 bytes, in the same order.
    package func utf8Equals(_ other: [String]) -> Bool {
        count == other.count && zip(self, other).allSatisfy { $0.utf8Equals($1) }
    }

    /// Feeds the count and every element's UTF-8 bytes.
    package func hashUTF8(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combineUTF8(element) }
    }
}

extension Dictionary where Key == String, Value: Hashable {
    /// Whether both dictionaries hold the same keys, compared by their UTF-8 bytes, with equal values.
    ///
    /// A Swift dictionary keyed by `String` finds a key by canonical equivalence, so the stored key found for
    /// each of `self`'s keys is checked byte for byte as well.
    /// - Complexity: O(n) lookups for n entries.
    package func utf8KeyedEquals(_ other: [String: Value]) -> Bool {
        guard count == other.count else { return false }
        for (key, value) in self {
            guard let index = other.index(forKey: key) else { return false }
            let entry = other[index]
            guard entry.key.utf8Equals(key), entry.value == value else { return false }
        }
        return true
    }

    /// Feeds a hash that agrees with ``utf8KeyedEquals(_:)``: independent of the entries' order, built from each
    /// key's UTF-8 bytes and its value.
    package func hashUTF8Keyed(into hasher: inout Hasher) {
        var combined: UInt = 0
        for (key, value) in self {
            var entry = Hasher()
            entry.combineUTF8(key)
            entry.combine(value)
            combined &+= UInt(bitPattern: entry.finalize())
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}
