/// SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014), the
/// seeded generator of `Scripts/diff-workload.md`: the same seed gives the same values on every platform, so
/// workloads, soak runs and property tests are reproducible. Shared by the benchmarks, the soak driver and the
/// tests; not for cryptography.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    /// The generator's whole state: the seed, advanced by a constant on every ``next()``.
    package var state: UInt64

    /// A generator starting at `state` (the seed).
    package init(state: UInt64) { self.state = state }

    /// A generator starting at `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `next() % bound` as an `Int` (the workload's definition, with its slight modulo bias): 0 ..< `bound`.
    /// - Precondition: `bound > 0`.
    package mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
