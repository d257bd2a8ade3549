import Foundation

@testable import FirestoreREST

/// Random runQuery response bodies, seeded: documents with every REST value kind in the spellings the wire
/// uses (integers as strings and as numbers, doubles with exponents and the non-finite strings, strings with
/// every escape, surrogate pairs and raw non-ASCII, nested arrays and maps, empty ones), member orders shuffled,
/// pretty-printed as the emulator writes (2 spaces) or compact.
struct RunQueryBodyGenerator {
    var random: SplitMix64
    var pretty: Bool

    init(seed: UInt64, pretty: Bool) {
        random = SplitMix64(state: seed)
        self.pretty = pretty
    }

    /// A whole body: `documents` document elements, maybe a first transaction element and a skipped-rows
    /// element, and the final `readTime`/`done` element.
    mutating func body(documents: Int) -> String {
        var elements: [String] = []
        if chance(4) {
            elements.append(object([("transaction", quoted("EQo" + word())), ("readTime", time())], indent: 0))
        }
        if chance(4) {
            elements.append(object([("readTime", time()), ("skippedResults", "\(int(0...5))")], indent: 0))
        }
        for _ in 0..<documents {
            elements.append(object([("document", document(indent: 1)), ("readTime", time())], indent: 0))
        }
        elements.append(object([("readTime", time()), ("done", "true")], indent: 0))
        return "[" + elements.joined(separator: pretty ? ",\n" : ",") + (pretty ? "]\n" : "]")
    }

    mutating func document(indent: Int) -> String {
        var members = [("name", quoted("projects/p/databases/(default)/documents/c/" + word()))]
        if !chance(6) { members.append(("fields", fields(indent: indent + 1, depth: 0))) }
        if !chance(6) { members.append(("createTime", time())) }
        if !chance(6) { members.append(("updateTime", time())) }
        return object(members, indent: indent)
    }

    mutating func fields(indent: Int, depth: Int) -> String {
        var members: [(String, String)] = []
        var names = Set<String>()
        for _ in 0..<int(0...6) {
            let name = string()
            // One spelling per name (the parser refuses canonically equivalent keys as duplicates).
            guard let decoded = try? JSONValue.parse(name).stringValue, names.insert(decoded).inserted else {
                continue
            }
            members.append((name, value(indent: indent + 1, depth: depth)))
        }
        return object(members, indent: indent, quotedNames: true)
    }

    mutating func value(indent: Int, depth: Int) -> String {
        let kind = int(0...(depth < 3 ? 12 : 9))
        let member: (String, String)
        switch kind {
        case 0: member = ("nullValue", "null")
        case 1: member = ("booleanValue", chance(2) ? "true" : "false")
        case 2: member = ("integerValue", quoted(String(Int64.random(in: .min ... .max, using: &random))))
        case 3: member = ("integerValue", String(Int64.random(in: -(1 << 53)...(1 << 53), using: &random)))
        case 4: member = ("doubleValue", double())
        case 5: member = ("timestampValue", time())
        case 6: member = ("stringValue", string())
        case 7:
            let bytes = (0..<int(0...12)).map { _ in UInt8.random(in: 0...255, using: &random) }
            member = ("bytesValue", quoted(Data(bytes).base64EncodedString()))
        case 8: member = ("referenceValue", quoted("projects/p/databases/(default)/documents/c/" + word()))
        case 9:
            var point: [(String, String)] = []
            if !chance(5) { point.append(("latitude", coordinate())) }
            if !chance(5) { point.append(("longitude", coordinate())) }
            member = ("geoPointValue", object(point, indent: indent + 1))
        case 10:
            if chance(5) {
                member = ("arrayValue", "{}")
            } else {
                let values = (0..<int(0...4)).map { _ in value(indent: indent + 3, depth: depth + 1) }
                member = (
                    "arrayValue", object([("values", "[" + values.joined(separator: ", ") + "]")], indent: indent + 1)
                )
            }
        default:
            member = (
                "mapValue",
                chance(5)
                    ? "{}" : object([("fields", fields(indent: indent + 2, depth: depth + 1))], indent: indent + 1)
            )
        }
        return object([member], indent: indent)
    }

    mutating func double() -> String {
        switch int(0...11) {
        case 0: return quoted("NaN")
        case 1: return quoted("Infinity")
        case 2: return quoted("-Infinity")
        case 3: return ["-0.0", "-0", "0", "0.0", "0e0", "-0E-0"][int(0...5)]
        case 4: return "\(int(-99...99)).\(int(0...999))E\(int(-30...30))"
        case 5: return "\(int(1...9))e+\(int(0...308))"
        case 6: return "12345678901234567890"
        case 7: return "1.0E308"
        case 8: return "5e-324"
        case 9: return String(int(-1000...1000))
        default:
            let value = Double(bitPattern: random.next())
            return value.isFinite ? "\(value)" : "1.5"
        }
    }

    mutating func coordinate() -> String {
        chance(3) ? String(int(-90...90)) : "\(Double.random(in: -90...90, using: &random))"
    }

    /// An RFC 3339 time as the emulator writes it: UTC, 0, 3, 6 or 9 fraction digits.
    mutating func time() -> String {
        let time = ts(Int64.random(in: -62_135_596_800...253_402_300_799, using: &random), 0)
        var text = time.rfc3339
        text.removeLast()
        let digits = [0, 3, 6, 9][int(0...3)]
        if digits > 0 { text += "." + (0..<digits).map { _ in String(int(0...9)) }.joined() }
        return quoted(text + "Z")
    }

    /// A JSON string literal with escapes, surrogate pairs and raw non-ASCII.
    mutating func string() -> String {
        let pieces = [
            "a", "Z", "0", " ", "\\n", "\\\"", "\\\\", "\\/", "\\t", "\\b", "\\f", "\\r", "\\u00e9", "\\u0000",
            "\\uD83D\\uDE00", "\\ud83d\\ude00", "\u{E9}", "\u{65}\u{301}", "\u{65E5}\u{672C}", "\u{1F600}", "field",
            "\\u2028", "`", "~",
        ]
        return quoted((0..<int(0...6)).map { _ in pieces[int(0...(pieces.count - 1))] }.joined())
    }

    mutating func word() -> String {
        String((0..<int(1...8)).map { _ in "abcdefghijklmnopqrstuvwxyz0123456789"[int(0...35)] })
    }

    func quoted(_ text: String) -> String { "\"" + text + "\"" }

    /// An object of the members in a shuffled order; names are quoted here unless `quotedNames`.
    mutating func object(_ members: [(String, String)], indent: Int, quotedNames: Bool = false) -> String {
        guard !members.isEmpty else { return "{}" }
        let shuffled = members.shuffled(using: &random)
        let inner = String(repeating: "  ", count: indent + 1)
        let lines = shuffled.map { name, value in
            let key = quotedNames ? name : quoted(name)
            return pretty ? "\(inner)\(key): \(value)" : "\(key):\(value)"
        }
        if pretty {
            return "{\n" + lines.joined(separator: ",\n") + "\n" + String(repeating: "  ", count: indent) + "}"
        }
        return "{" + lines.joined(separator: ",") + "}"
    }

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ oneIn: Int) -> Bool { int(1...oneIn) == 1 }
}

extension String {
    fileprivate subscript(offset: Int) -> Character { self[index(startIndex, offsetBy: offset)] }
}

/// A seeded generator (SplitMix64), so a failing body can be made again from its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
