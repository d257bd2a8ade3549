import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A point in time with nanosecond precision: whole seconds since the Unix epoch plus 0 to 999,999,999
/// nanoseconds, as Firestore's `timestampValue`, `createTime`, `updateTime` and `readTime` carry it.
///
/// Firestore stores microseconds (REST reference: `Value.timestampValue`); this type keeps whatever it is given, so a
/// value read from the wire and written back is byte-identical.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z; negative before the epoch.
    public let seconds: Int64
    /// Nanoseconds within the second, 0 ... 999,999,999 (always non-negative, also before the epoch).
    public let nanos: Int32

    /// The earliest instant Firestore accepts, 0001-01-01T00:00:00Z.
    public static let minimum = Timestamp(uncheckedSeconds: -62_135_596_800, nanos: 0)
    /// The latest instant Firestore accepts, 9999-12-31T23:59:59.999999999Z.
    public static let maximum = Timestamp(uncheckedSeconds: 253_402_300_799, nanos: 999_999_999)

    /// Creates a timestamp.
    /// - Throws: ``FirestoreError`` `.invalidArgument` when `nanos` is outside 0 ... 999,999,999 or the instant
    ///   lies outside 0001-01-01 ... 9999-12-31.
    public init(seconds: Int64, nanos: Int32) throws(FirestoreError) {
        guard (0...999_999_999).contains(nanos) else {
            throw .invalidArgument("Timestamp nanos \(nanos) is outside 0...999999999")
        }
        guard seconds >= Self.minimum.seconds, seconds <= Self.maximum.seconds else {
            throw .invalidArgument("Timestamp seconds \(seconds) is outside 0001-01-01...9999-12-31")
        }
        self.seconds = seconds
        self.nanos = nanos
    }

    init(uncheckedSeconds seconds: Int64, nanos: Int32) {
        self.seconds = seconds
        self.nanos = nanos
    }

    /// The instant of `date`, rounded to the nearest microsecond (a `Date` holds a `Double`, whose last
    /// digits below a microsecond are noise for present-day dates). Dates outside 0001-01-01 ... 9999-12-31
    /// (infinite ones included) are clamped to that range; a NaN date, which names no instant, becomes
    /// ``minimum``.
    public init(date: Date) {
        guard !date.timeIntervalSince1970.isNaN else {
            self = .minimum
            return
        }
        let micros = (date.timeIntervalSince1970 * 1_000_000).rounded()
        let clamped = max(min(micros, Double(Self.maximum.seconds) * 1e6), Double(Self.minimum.seconds) * 1e6)
        let total = Int64(clamped)
        var seconds = total / 1_000_000
        var remainder = total % 1_000_000
        if remainder < 0 {
            seconds -= 1
            remainder += 1_000_000
        }
        self.init(uncheckedSeconds: seconds, nanos: Int32(remainder * 1000))
    }

    /// The current time.
    public static func now() -> Timestamp { Timestamp(date: Date()) }

    /// This instant as a `Date` (precision below about a microsecond is lost to `Double`).
    public var dateValue: Date {
        Date(timeIntervalSince1970: Double(seconds) + Double(nanos) / 1e9)
    }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }

    /// The RFC 3339 form, see ``rfc3339``.
    public var description: String { rfc3339 }
}
