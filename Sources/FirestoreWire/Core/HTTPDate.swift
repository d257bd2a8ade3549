#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The HTTP date format of `Retry-After` and `Date` headers: IMF-fixdate (RFC 9110 §5.6.7),
/// `Sun, 06 Nov 1994 08:49:37 GMT`, always in GMT. Parsed by hand, so no date formatter (and no ICU) is needed.
package enum HTTPDate {
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// The moment `text` names, or `nil` when it is not an IMF-fixdate: a three-letter day name and a comma,
    /// a one- or two-digit day that exists in the month, an English three-letter month, a four-digit year,
    /// `HH:mm:ss` (seconds up to 60, a leap second) and `GMT` (or `UTC`), separated by spaces; spaces and
    /// tabs around the whole are ignored.
    /// - Complexity: O(n) for n characters.
    package static func parse(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard parts.count == 6, parts[0].count == 4, parts[0].last == ",",
            parts[0].dropLast().allSatisfy({ $0.isASCII && $0.isLetter }),
            parts[5] == "GMT" || parts[5] == "UTC",
            (1...2).contains(parts[1].count), let day = number(parts[1]),
            let monthIndex = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = number(parts[3])
        else { return nil }
        let clock = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }), let hour = number(clock[0]),
            let minute = number(clock[1]), let second = number(clock[2]), hour < 24, minute < 60, second <= 60
        else { return nil }
        let month = monthIndex + 1
        guard day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let seconds =
            CivilCalendar.daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3_600 + minute * 60
            + second
        return Date(timeIntervalSince1970: Double(seconds))
    }

    /// The value of an all-digit `text`, or `nil`.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(text)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
