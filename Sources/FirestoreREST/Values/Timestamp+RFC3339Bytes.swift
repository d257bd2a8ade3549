extension Timestamp {
    /// Appends ``rfc3339`` to `output` as UTF-8, byte for byte the same, without building a `String`; with
    /// `nineDigits`, always 9 fraction digits instead of the fewest of 0, 3, 6 or 9 that hold `nanos` (the mirrors'
    /// stored form: `2026-12-06T05:01:02.123000000Z`).
    package func writeRFC3339(to output: inout [UInt8], nineDigits: Bool = false) {
        let days = Int(seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400))
        let secondOfDay = Int(seconds - Int64(days) * 86_400)
        let (year, month, day) = Self.civilFromDays(days)
        func digits(_ value: Int, _ width: Int) {
            var divisor = 1
            for _ in 1..<width { divisor *= 10 }
            var rest = value
            while divisor > 0 {
                output.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest / divisor % 10))
                rest %= divisor
                divisor /= 10
            }
        }
        digits(year, 4)
        output.append(UInt8(ascii: "-"))
        digits(month, 2)
        output.append(UInt8(ascii: "-"))
        digits(day, 2)
        output.append(UInt8(ascii: "T"))
        digits(secondOfDay / 3600, 2)
        output.append(UInt8(ascii: ":"))
        digits(secondOfDay / 60 % 60, 2)
        output.append(UInt8(ascii: ":"))
        digits(secondOfDay % 60, 2)
        let nanos = Int(self.nanos)
        if nineDigits {
            output.append(UInt8(ascii: "."))
            digits(nanos, 9)
        } else if nanos != 0 {
            output.append(UInt8(ascii: "."))
            if nanos % 1_000_000 == 0 {
                digits(nanos / 1_000_000, 3)
            } else if nanos % 1000 == 0 {
                digits(nanos / 1000, 6)
            } else {
                digits(nanos, 9)
            }
        }
        output.append(UInt8(ascii: "Z"))
    }
}
