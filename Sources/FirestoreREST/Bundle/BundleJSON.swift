import FirestoreWire

/// A JSON value with its object members in a fixed order, written as JavaScript's `JSON.stringify` writes it: what
/// a bundle element must be byte for byte to equal the Node SDK's (`BundleBuilder.build()` writes
/// `JSON.stringify(message.toJSON())`, protobuf.js's JSON form, whose members follow the field numbers).
package indirect enum BundleJSON: Sendable, Hashable {
    /// A number or a literal (`true`, `42`, `1e+21`), written as it is.
    case literal(String)
    /// A string, escaped as `JSON.stringify` escapes it.
    case string(String)
    /// An array.
    case array([BundleJSON])
    /// An object whose members are written in this order.
    case object([(String, BundleJSON)])

    package static func == (lhs: BundleJSON, rhs: BundleJSON) -> Bool { lhs.bytes == rhs.bytes }
    package func hash(into hasher: inout Hasher) { hasher.combine(bytes) }

    /// A boolean.
    package static func bool(_ value: Bool) -> BundleJSON { .literal(value ? "true" : "false") }
    /// A whole number, as JavaScript writes one (`-7`).
    package static func integer(_ value: some BinaryInteger) -> BundleJSON { .literal(String(value)) }

    /// The UTF-8 bytes `JSON.stringify` writes: no spaces; `"`, `\` and control characters escaped (`\n`,
    /// `\u001f`); everything else, `/` and non-ASCII included, as it is.
    /// - Complexity: O(n) in the size of the output.
    package var bytes: [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .literal(let text): output.append(contentsOf: text.utf8)
        case .string(let text): JSONValue.writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                element.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (position, (key, value)) in members.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// `number` as JavaScript's `Number.prototype.toString` writes it (ECMA-262 `Number::toString`): the shortest
    /// digits that read back as the same `Double`, in plain notation from 1e-6 up to below 1e21 (`0.000001`,
    /// `100`, `123450000000000000000`), exponential outside (`1e-7`, `1.5e+21`); `-0` is `0`. Not finite values
    /// have no JSON number: the caller writes them as strings, as protobuf.js does (`"NaN"`, `"Infinity"`).
    package static func javaScriptNumber(_ number: Double) -> String {
        guard number.isFinite else { return number.isNaN ? "NaN" : (number < 0 ? "-Infinity" : "Infinity") }
        if number == 0 { return "0" }
        let sign = number < 0 ? "-" : ""
        // Swift's description holds the same shortest round-trip digits, in its own layout ("1e-07", "100.0").
        let text = number.magnitude.description
        let parts = text.split(separator: "e", maxSplits: 1)
        let exponent = parts.count == 2 ? Int(parts[1]) ?? 0 : 0
        let mantissa = parts[0].split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = mantissa[0]
        let fraction = mantissa.count == 2 ? mantissa[1] : ""
        var digits = Array(whole + fraction)
        var point = whole.count + exponent  // the value is 0.digits × 10^point
        while digits.first == "0", digits.count > 1 {
            digits.removeFirst()
            point -= 1
        }
        while digits.last == "0", digits.count > 1 { digits.removeLast() }
        let count = digits.count
        let body: String
        if count <= point, point <= 21 {
            body = String(digits) + String(repeating: "0", count: point - count)
        } else if 0 < point, point <= 21 {
            body = String(digits[..<point]) + "." + String(digits[point...])
        } else if -6 < point, point <= 0 {
            body = "0." + String(repeating: "0", count: -point) + String(digits)
        } else {
            let power = point - 1
            let head = count == 1 ? String(digits) : String(digits[0]) + "." + String(digits[1...])
            body = head + "e" + (power < 0 ? "-" : "+") + String(power.magnitude)
        }
        return sign + body
    }
}
