import FirestoreREST

/// A time option given in seconds (`--interval 0.5`): read as a JSON number, so `0x10`, `inf` and `nan`, which
/// Swift's `Double(_:)` would take, are refused.
package enum SecondsArgument {
    /// Seconds as a JSON number (`0.5`, `2`), or `nil`: Swift's `Double("0x10")` would take hexadecimal.
    package static func seconds(_ text: String) -> Double? {
        switch try? JSONValue.parse(text) {
        case .integer(let number)?: return Double(number)
        case .double(let number)?: return number
        default: return nil
        }
    }
}
