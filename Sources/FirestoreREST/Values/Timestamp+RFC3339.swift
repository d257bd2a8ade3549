import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Timestamp {
    /// Parses an RFC 3339 `date-time` as Firestore and proto3 JSON write it:
    /// `YYYY-MM-DDThh:mm:ss[.f{1,9}](Z|±hh:mm)`. `t` and `z` are accepted in lower case; an offset is
    /// converted to UTC. The fraction keeps every digit given (0 to 9), so nothing is lost.
    ///
    /// - Throws: ``FirestoreError`` `.invalidArgument` naming the text and the byte offset of the fault, for a
    ///   malformed text, an impossible date (`2023-02-30`), more than 9 fraction digits, or an instant
    ///   outside 0001-01-01 ... 9999-12-31 after applying the offset.
    /// - Complexity: O(n) in the text length; no Foundation formatter is involved.
    public init(rfc3339 text: String) throws(FirestoreError) {
        try self.init(rfc3339UTF8: Array(text.utf8), text: text)
    }

    /// ``init(rfc3339:)`` on the text's UTF-8 bytes (a REST body's bytes, without making a `String` first); the
    /// same rules and the same errors, whose message quotes `text()` (made only for an error).
    package init<Bytes: RandomAccessCollection<UInt8>>(
        rfc3339UTF8 utf8: Bytes, text: @autoclosure () -> String
    ) throws(FirestoreError) where Bytes.Index == Int {
        let bytes = ZeroBasedBytes(base: utf8)
        var index = 0
        func fail(_ reason: String) -> FirestoreError {
            .invalidArgument("invalid RFC 3339 timestamp \"\(text())\" at byte \(index): \(reason)")
        }
        func digits(_ count: Int) throws(FirestoreError) -> Int {
            var value = 0
            for _ in 0..<count {
                guard index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 else {
                    throw fail("expected a digit")
                }
                value = value * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            return value
        }
        func expect(_ characters: String) throws(FirestoreError) {
            guard index < bytes.count, characters.utf8.contains(bytes[index]) else {
                throw fail("expected \(characters.map { "'\($0)'" }.joined(separator: " or "))")
            }
            index += 1
        }
        let year = try digits(4)
        try expect("-")
        let month = try digits(2)
        try expect("-")
        let day = try digits(2)
        try expect("Tt")
        let hour = try digits(2)
        try expect(":")
        let minute = try digits(2)
        try expect(":")
        let second = try digits(2)
        var nanos = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var count = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                count += 1
                if count > 9 { throw fail("more than 9 fraction digits") }
                nanos = nanos * 10 + Int(bytes[index] - 0x30)
                index += 1
            }
            if count == 0 { throw fail("expected a fraction digit") }
            for _ in count..<9 { nanos *= 10 }
        }
        var offsetSeconds = 0
        guard index < bytes.count else { throw fail("expected 'Z' or an offset") }
        switch bytes[index] {
        case UInt8(ascii: "Z"), UInt8(ascii: "z"):
            index += 1
        case UInt8(ascii: "+"), UInt8(ascii: "-"):
            let sign = bytes[index] == UInt8(ascii: "-") ? -1 : 1
            index += 1
            let offsetHours = try digits(2)
            try expect(":")
            let offsetMinutes = try digits(2)
            guard offsetHours < 24, offsetMinutes < 60 else { throw fail("offset out of range") }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            throw fail("expected 'Z' or an offset")
        }
        guard index == bytes.count else { throw fail("unexpected text after the timestamp") }
        guard (1...12).contains(month), day >= 1, day <= Self.daysInMonth(year: year, month: month) else {
            index = 5
            throw fail("no such date")
        }
        // RFC 3339 allows a leap second (60); Firestore and protobuf do not, so it is refused.
        guard hour < 24, minute < 60, second < 60 else {
            index = 11
            throw fail("time out of range")
        }
        let days = CivilCalendar.daysFromCivil(year: year, month: month, day: day)
        let total = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetSeconds)
        do {
            try self.init(seconds: total, nanos: Int32(nanos))
        } catch {
            throw .invalidArgument("timestamp \"\(text())\" is outside 0001-01-01...9999-12-31")
        }
    }

    /// The RFC 3339 text in UTC with `Z`, with 0, 3, 6 or 9 fraction digits (the fewest that hold `nanos`
    /// exactly, as proto3 JSON writes it): `2026-11-29T12:19:29.173424Z`.
    public var rfc3339: String {
        let days = Int(floorDivide(seconds, 86_400))
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = Self.civilFromDays(days)
        var text = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T"
        text += pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if nanos != 0 {
            if nanos % 1_000_000 == 0 {
                text += "." + pad(Int(nanos / 1_000_000), 3)
            } else if nanos % 1000 == 0 {
                text += "." + pad(Int(nanos / 1000), 6)
            } else {
                text += "." + pad(Int(nanos), 9)
            }
        }
        return text + "Z"
    }

    private func pad(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    static func isLeapYear(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Hinnant's `civil_from_days`).
    static func civilFromDays(_ days: Int) -> (year: Int, month: Int, day: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthPrime + 2) / 5 + 1
        let month = monthPrime < 10 ? monthPrime + 3 : monthPrime - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// A collection's bytes read by offsets from 0, whatever its indices (a slice's start where it starts).
private struct ZeroBasedBytes<Base: RandomAccessCollection<UInt8>> where Base.Index == Int {
    let base: Base
    var count: Int { base.count }
    subscript(offset: Int) -> UInt8 { base[base.startIndex + offset] }
}
