/// The distinct identities of a list, each numbered by its first appearance (its *slot*: the first identity is
/// slot 0, the next different one slot 1, ...), in an open-addressing hash table that keeps each identity's hash
/// value in its bucket.
///
/// ``SnapshotArrayDiff`` maps identities to slots with it instead of a `Dictionary`: a lookup compares two
/// identities only when their full hash values are equal (a `Dictionary` compares the key of every bucket it
/// probes, a string comparison each for names), and ``slot(of:guess:)`` first tries the slot the caller expects,
/// which costs one comparison instead of hashing when the lists are mostly in the same order.
/// Hash values come from the identity's own `Hashable` conformance (the standard library's per-process seeded
/// hashing), so crafted identities cannot collide more here than in a `Dictionary`.
@usableFromInline
struct IdentitySlots<Identity: Hashable> {
    /// One bucket of the table: the slot stored there (`-1`: empty) and its identity's hash value.
    @usableFromInline
    struct Bucket {
        @usableFromInline var slot: Int
        @usableFromInline var hash: Int

        @inlinable
        init(slot: Int, hash: Int) {
            self.slot = slot
            self.hash = hash
        }
    }

    /// The identity of each slot, by slot.
    @usableFromInline
    var identities: [Identity] = []
    /// A power of two of buckets, at most three quarters of them used; linear probing.
    @usableFromInline
    var buckets: [Bucket]

    /// An empty table sized for `capacity` distinct identities (it grows past them).
    @inlinable
    init(capacity: Int) {
        identities.reserveCapacity(capacity)
        buckets = Self.emptyBuckets(for: capacity)
    }

    /// The number of slots: the distinct identities added.
    @inlinable
    var count: Int { identities.count }

    /// The slot of `identity`, which becomes the next slot when it is not in the table yet.
    /// - Complexity: one hash of `identity` and O(1) probes on average.
    @inlinable
    mutating func claim(_ identity: consuming Identity) -> Int {
        let hash = identity.hashValue
        let found = find(identity, hash: hash)
        if found.slot >= 0 { return found.slot }
        let slot = identities.count
        identities.append(identity)
        buckets[found.bucket] = Bucket(slot: slot, hash: hash)
        if identities.count * 4 > buckets.count * 3 { rehash() }
        return slot
    }

    /// The slot of `identity`, or -1 when it is not in the table.
    /// - Complexity: one hash of `identity` and O(1) probes on average.
    @inlinable
    func slot(of identity: Identity) -> Int {
        find(identity, hash: identity.hashValue).slot
    }

    /// The slot of `identity`, or -1 when it is not in the table, trying `guess` first: when `identity` is the
    /// identity of slot `guess` (any integer; out of range is a wrong guess), that is its slot, found without
    /// hashing.
    /// - Complexity: one comparison when the guess is right; one more than ``slot(of:)`` otherwise.
    @inlinable
    func slot(of identity: Identity, guess: Int) -> Int {
        if guess >= 0, guess < identities.count, identities[guess] == identity { return guess }
        return slot(of: identity)
    }

    /// The bucket holding `identity` and its slot, or the empty bucket where it would go and -1.
    @inlinable
    func find(_ identity: Identity, hash: Int) -> (bucket: Int, slot: Int) {
        let mask = buckets.count - 1
        var bucket = hash & mask
        while true {
            let stored = buckets[bucket]
            if stored.slot < 0 { return (bucket, -1) }
            if stored.hash == hash, identities[stored.slot] == identity { return (bucket, stored.slot) }
            bucket = (bucket + 1) & mask
        }
    }

    /// Doubles the buckets and places every slot again by its stored hash value.
    @inlinable
    mutating func rehash() {
        let old = buckets
        buckets = Self.emptyBuckets(for: identities.count * 2)
        let mask = buckets.count - 1
        for entry in old where entry.slot >= 0 {
            var bucket = entry.hash & mask
            while buckets[bucket].slot >= 0 { bucket = (bucket + 1) & mask }
            buckets[bucket] = entry
        }
    }

    /// Empty buckets for `capacity` identities: the smallest power of two of at least 16 and 4/3 of `capacity`.
    @inlinable
    static func emptyBuckets(for capacity: Int) -> [Bucket] {
        var count = 16
        while count * 3 < capacity * 4 { count *= 2 }
        return [Bucket](repeating: Bucket(slot: -1, hash: 0), count: count)
    }
}
