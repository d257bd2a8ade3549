import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreValue {
    /// Appends the compact JSON text of ``encodeFields(_:)`` (what `serialized()` of it gives) to `output`, byte for
    /// byte the same, written directly instead of through a `JSONValue` tree: the REST `fields` object of a document,
    /// names in sorted (code point) order, each value a REST `Value` object (see ``restJSON``).
    /// - Complexity: O(n log k) for n values and maps of at most k fields.
    package static func writeRESTFields(_ fields: [String: FirestoreValue], to output: inout [UInt8]) {
        guard !fields.isEmpty else {
            output.append(contentsOf: "{}".utf8)
            return
        }
        output.append(UInt8(ascii: "{"))
        var first = true
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            JSONValue.writeString(name, to: &output)
            output.append(UInt8(ascii: ":"))
            value.writeRESTJSON(to: &output)
        }
        output.append(UInt8(ascii: "}"))
    }

    /// Appends the compact JSON text of ``restJSON`` to `output`, byte for byte what `restJSON.serialized()` gives.
    package func writeRESTJSON(to output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: #"{"nullValue":null}"#.utf8)
        case .boolean(let flag):
            output.append(contentsOf: (flag ? #"{"booleanValue":true}"# : #"{"booleanValue":false}"#).utf8)
        case .integer(let number):
            output.append(contentsOf: #"{"integerValue":""#.utf8)
            output.append(contentsOf: String(number).utf8)
            output.append(contentsOf: #""}"#.utf8)
        case .double(let number):
            if number.isNaN {
                output.append(contentsOf: #"{"doubleValue":"NaN"}"#.utf8)
            } else if number.isInfinite {
                output.append(
                    contentsOf: (number < 0 ? #"{"doubleValue":"-Infinity"}"# : #"{"doubleValue":"Infinity"}"#).utf8)
            } else {
                output.append(contentsOf: #"{"doubleValue":"#.utf8)
                Self.writeNumber(number, to: &output)
                output.append(UInt8(ascii: "}"))
            }
        case .timestamp(let time):
            output.append(contentsOf: #"{"timestampValue":""#.utf8)
            time.writeRFC3339(to: &output)
            output.append(contentsOf: #""}"#.utf8)
        case .string(let text):
            output.append(contentsOf: #"{"stringValue":"#.utf8)
            JSONValue.writeString(text, to: &output)
            output.append(UInt8(ascii: "}"))
        case .bytes(let data):
            output.append(contentsOf: #"{"bytesValue":""#.utf8)
            Self.writeBase64(data, to: &output)
            output.append(contentsOf: #""}"#.utf8)
        case .reference(let name):
            output.append(contentsOf: #"{"referenceValue":"#.utf8)
            JSONValue.writeString(name, to: &output)
            output.append(UInt8(ascii: "}"))
        case .geoPoint(let point):
            output.append(contentsOf: #"{"geoPointValue":{"latitude":"#.utf8)
            Self.writeNumber(point.latitude, to: &output)
            output.append(contentsOf: #","longitude":"#.utf8)
            Self.writeNumber(point.longitude, to: &output)
            output.append(contentsOf: "}}".utf8)
        case .array(let elements):
            output.append(contentsOf: #"{"arrayValue":{"values":["#.utf8)
            for (position, element) in elements.enumerated() {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                element.writeRESTJSON(to: &output)
            }
            output.append(contentsOf: "]}}".utf8)
        case .map(let fields):
            output.append(contentsOf: #"{"mapValue":{"fields":"#.utf8)
            Self.writeRESTFields(fields, to: &output)
            output.append(contentsOf: "}}".utf8)
        }
    }

    /// A `JSONValue.double` as the JSON writer writes it: the shortest text that reads back as the same value, `null`
    /// when not finite.
    private static func writeNumber(_ number: Double, to output: inout [UInt8]) {
        guard number.isFinite else {
            output.append(contentsOf: "null".utf8)
            return
        }
        output.append(contentsOf: JSONValue.formatDouble(number).utf8)
    }

    private static let base64Alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// `data` in standard base64 with padding, as `base64EncodedString()` writes it.
    private static func writeBase64(_ data: Data, to output: inout [UInt8]) {
        let alphabet = base64Alphabet
        output.reserveCapacity(output.count + (data.count + 2) / 3 * 4)
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var index = 0
            while index + 3 <= bytes.count {
                let triple = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                output.append(alphabet[Int(triple >> 18 & 63)])
                output.append(alphabet[Int(triple >> 12 & 63)])
                output.append(alphabet[Int(triple >> 6 & 63)])
                output.append(alphabet[Int(triple & 63)])
                index += 3
            }
            switch bytes.count - index {
            case 1:
                let value = UInt32(bytes[index]) << 16
                output.append(alphabet[Int(value >> 18 & 63)])
                output.append(alphabet[Int(value >> 12 & 63)])
                output.append(contentsOf: "==".utf8)
            case 2:
                let value = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8
                output.append(alphabet[Int(value >> 18 & 63)])
                output.append(alphabet[Int(value >> 12 & 63)])
                output.append(alphabet[Int(value >> 6 & 63)])
                output.append(UInt8(ascii: "="))
            default: break
            }
        }
    }
}
