import FirestoreWire

extension FirestoreEncoder {
    /// What a `nil` optional property becomes (`CodableFieldCaseTests.c15...`).
    ///
    /// The SDK omits nil optionals, so a model written with `setData(from:merge: true)` cannot clear a field
    /// it set before: the field is not in the data, hence not in the update mask, and keeps its old value.
    /// ``null`` writes `nullValue` for every nil optional instead, which puts the field in the merge mask and
    /// overwrites it. For one property only, wrap it in ``ExplicitNull``. Decoding treats an absent field and
    /// `nullValue` alike (both are `nil` for an optional), so either choice reads back the same.
    public enum NilEncodingStrategy: Sendable, Hashable {
        /// Leave the field out (the SDK's behaviour, the default).
        case omit
        /// Write `nullValue`.
        case null
    }
}
