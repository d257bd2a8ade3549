/// Pairs the elements of two lists that share an identity, given each element's identity as a small integer
/// (a *slot*: equal identities have equal slots).
///
/// Rule for repeated identities (`[a,a,a,a]`, FUISnapshotArrayDiffTest row 15): the k-th occurrence of an
/// identity in `initial` pairs with its k-th occurrence in `result`; occurrences beyond the other side's count
/// are unpaired (deleted from `initial`, inserted into `result`). Paired occurrences of one identity therefore
/// keep their relative order. Nothing traps, whatever the input.
@usableFromInline
struct IdentityPairing {
    /// For each initial position, the paired result position, or -1 (the element is deleted).
    @usableFromInline
    var resultPositionOfInitial: [Int]
    /// For each result position, the paired initial position, or -1 (the element is inserted).
    @usableFromInline
    var initialPositionOfResult: [Int]

    /// - Parameters:
    ///   - initialSlots: the slot of each initial element, each in `0..<slotCount`.
    ///   - resultSlots: the slot of each result element, in `0..<slotCount`, or -1 for an identity absent from
    ///     `initial`.
    ///   - slotCount: the number of distinct slots.
    /// - Complexity: O(n + m) time and memory.
    @usableFromInline
    init(initialSlots: [Int], resultSlots: [Int], slotCount: Int) {
        var resultPositionOfInitial = [Int](repeating: -1, count: initialSlots.count)
        var initialPositionOfResult = [Int](repeating: -1, count: resultSlots.count)
        if slotCount == initialSlots.count {
            // No identity repeats in `initial`: slots are numbered by first appearance, so each initial
            // element's slot is its position, and it pairs with the first result element of its slot.
            for (resultPosition, slot) in resultSlots.enumerated() where slot >= 0 {
                guard resultPositionOfInitial[slot] < 0 else { continue }
                resultPositionOfInitial[slot] = resultPosition
                initialPositionOfResult[resultPosition] = slot
            }
            self.resultPositionOfInitial = resultPositionOfInitial
            self.initialPositionOfResult = initialPositionOfResult
            return
        }
        // A queue of initial positions per slot, as a linked list: head[slot] is the next unpaired initial
        // position of that identity, following[position] the one after it.
        var head = [Int](repeating: -1, count: slotCount)
        var following = [Int](repeating: -1, count: initialSlots.count)
        for position in stride(from: initialSlots.count - 1, through: 0, by: -1) {
            let slot = initialSlots[position]
            following[position] = head[slot]
            head[slot] = position
        }
        for (resultPosition, slot) in resultSlots.enumerated() where slot >= 0 {
            let initialPosition = head[slot]
            guard initialPosition >= 0 else { continue }
            head[slot] = following[initialPosition]
            resultPositionOfInitial[initialPosition] = resultPosition
            initialPositionOfResult[resultPosition] = initialPosition
        }
        self.resultPositionOfInitial = resultPositionOfInitial
        self.initialPositionOfResult = initialPositionOfResult
    }
}
