import FirestoreREST

/// Typed option values (swift-argument-parser's `ExpressibleByArgument`): each reads the option's last value
/// into its type and range, `nil` when the option is not given, and refuses anything else with the option's
/// name, the value as given (cut after its first 80 characters, as ``MessageQuote`` quotes it) and what was
/// expected.
extension ArgumentReader {
    /// The value of `option` when the command declares it (an option group shared by commands that declare
    /// only part of it).
    package func valueIfDeclared(_ option: String) -> String? {
        declares(option) ? value(option) : nil
    }

    /// A whole number above 0 (`--count 5`).
    /// - Throws: ``ValidationError``: `--count "0": expected a whole number above 0`.
    package func positiveInteger(_ option: String) throws(ValidationError) -> Int? {
        guard let text = value(option) else { return nil }
        guard let number = Int(text), number > 0 else {
            throw ValidationError("\(option) \(MessageQuote.quoted(text)): expected a whole number above 0")
        }
        return number
    }

    /// A whole number in `range` (`--port 8080`); `expected` names the kind in the error.
    /// - Throws: ``ValidationError``: `--port "x": expected a number from 0 to 65535`.
    package func integer(
        _ option: String, in range: ClosedRange<Int>, expected: String = "a number"
    ) throws(ValidationError) -> Int? {
        guard let text = value(option) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw ValidationError(
                "\(option) \(MessageQuote.quoted(text)): expected \(expected) from \(range.lowerBound) to "
                    + "\(range.upperBound)")
        }
        return number
    }

    /// A finite decimal number in `range` (`--speed 2.5`).
    /// - Throws: ``ValidationError``: `--speed "0": expected a number from 0.01 to 1000`.
    package func number(_ option: String, in range: ClosedRange<Double>) throws(ValidationError) -> Double? {
        guard let text = value(option) else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw ValidationError("\(option) \(MessageQuote.quoted(text)): expected a number from \(Self.text(range))")
        }
        return number
    }

    /// A time in seconds in `range` (`--interval 0.5`), read as a JSON number (``SecondsArgument``), to the
    /// millisecond.
    /// - Throws: ``ValidationError``: `--interval "0x10": expected seconds from 0.01 to 86400`.
    package func seconds(_ option: String, in range: ClosedRange<Double>) throws(ValidationError) -> Duration? {
        guard let text = value(option) else { return nil }
        guard let seconds = SecondsArgument.seconds(text), seconds.isFinite, range.contains(seconds) else {
            throw ValidationError("\(option) \(MessageQuote.quoted(text)): expected seconds from \(Self.text(range))")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// A value that must not be empty (`--checkpoint FILE`); `what` names what it should be in the error.
    /// - Throws: ``ValidationError``: `--checkpoint needs a file name`.
    package func nonEmpty(_ option: String, _ what: String) throws(ValidationError) -> String? {
        guard let text = value(option) else { return nil }
        guard !text.isEmpty else { throw ValidationError("\(option) needs \(what)") }
        return text
    }

    /// `0.01 to 86400`: whole bounds without a fraction.
    private static func text(_ range: ClosedRange<Double>) -> String {
        func text(_ bound: Double) -> String { bound == bound.rounded() ? String(Int(bound)) : String(bound) }
        return text(range.lowerBound) + " to " + text(range.upperBound)
    }
}
