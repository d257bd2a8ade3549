import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreEncoder {
    /// How a `Date` is written. The SDK's default is ``timestamp``.
    public enum DateEncodingStrategy: Sendable {
        /// A `timestampValue`, rounded to the microsecond (``Timestamp/init(date:)``; Firestore stores
        /// microseconds). The default.
        case timestamp
        /// Whatever `Date.encode(to:)` writes: a `doubleValue` of seconds since 2001-01-01.
        case deferredToDate
        /// A `doubleValue` of seconds since 1970-01-01.
        case secondsSince1970
        /// A `doubleValue` of milliseconds since 1970-01-01.
        case millisecondsSince1970
        /// A `stringValue` in ISO 8601 / RFC 3339 form without fractional seconds, `2019-10-07T21:33:51Z`.
        case iso8601
        /// The closure encodes the date into the encoder it is given (nothing written is an empty map).
        case custom(@Sendable (Date, any Encoder) throws -> Void)
    }
}

extension FirestoreDecoder {
    /// How a `Date` is read. The SDK's default is ``timestamp``.
    public enum DateDecodingStrategy: Sendable {
        /// From a `timestampValue` (or a `{seconds, nanoseconds}` map, as ``Timestamp`` decodes). The default.
        case timestamp
        /// Whatever `Date(from:)` reads: seconds since 2001-01-01.
        case deferredToDate
        /// From a number of seconds since 1970-01-01 (`doubleValue` or `integerValue`).
        case secondsSince1970
        /// From a number of milliseconds since 1970-01-01 (`doubleValue` or `integerValue`).
        case millisecondsSince1970
        /// From an RFC 3339 `stringValue` (with or without fractional seconds, any offset).
        case iso8601
        /// The closure decodes the date from the decoder it is given.
        case custom(@Sendable (any Decoder) throws -> Date)
    }
}
