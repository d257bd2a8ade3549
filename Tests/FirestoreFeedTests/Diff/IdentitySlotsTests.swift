import Testing

@testable import FirestoreFeed

/// ``IdentitySlots``, the identity-to-slot table of ``SnapshotArrayDiff``: slots numbered by first appearance,
/// growth past the capacity it was made for, colliding hash values, and guesses right, wrong and out of range.
@Suite(.timeLimit(.minutes(1))) struct IdentitySlotsTests {
    /// An identity whose hash value is the same for every value: every lookup probes past the others.
    struct Colliding: Hashable {
        var name: String
        func hash(into hasher: inout Hasher) { hasher.combine(0) }
    }

    @Test func slotsAreNumberedByFirstAppearanceAndRepeatsShareOne() {
        var slots = IdentitySlots<String>(capacity: 4)
        let claimed = ["a", "b", "a", "c", "b", "a"].map { slots.claim($0) }
        #expect(claimed == [0, 1, 0, 2, 1, 0])
        #expect(slots.count == 3)
        #expect(["a", "b", "c", "d"].map { slots.slot(of: $0) } == [0, 1, 2, -1])
    }

    @Test func theTableGrowsPastItsCapacity() {
        var slots = IdentitySlots<Int>(capacity: 0)
        let claimed = (0..<1_000).map { slots.claim($0 * 7) }
        #expect(claimed == Array(0..<1_000))
        #expect(slots.count == 1_000)
        #expect((0..<1_000).allSatisfy { slots.slot(of: $0 * 7) == $0 })
        #expect(slots.slot(of: 1) == -1)
        #expect(slots.buckets.count * 3 >= slots.count * 4)
    }

    @Test func collidingHashValuesStillFindEachIdentity() {
        var slots = IdentitySlots<Colliding>(capacity: 10)
        let names = (0..<40).map { Colliding(name: "n\($0)") }
        #expect(names.map { slots.claim($0) } == Array(0..<40))
        #expect(names.map { slots.claim($0) } == Array(0..<40))
        #expect(names.map { slots.slot(of: $0) } == Array(0..<40))
        #expect(slots.slot(of: Colliding(name: "absent")) == -1)
    }

    @Test func aGuessIsUsedOnlyWhenItIsTheIdentitysSlot() {
        var slots = IdentitySlots<String>(capacity: 3)
        for name in ["a", "b", "c"] { _ = slots.claim(name) }
        #expect(slots.slot(of: "b", guess: 1) == 1)
        #expect(slots.slot(of: "b", guess: 2) == 1)
        #expect(slots.slot(of: "b", guess: -1) == 1)
        #expect(slots.slot(of: "b", guess: 3) == 1)
        #expect(slots.slot(of: "b", guess: Int.max) == 1)
        #expect(slots.slot(of: "z", guess: 0) == -1)
    }
}
