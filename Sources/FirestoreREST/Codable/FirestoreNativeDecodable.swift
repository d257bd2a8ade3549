import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A type ``FirestoreDecoderImpl`` decodes itself instead of calling its `init(from:)`: the primitives (so an
/// array of them needs no container per element), Foundation types with a Firestore form (`Date`, `Data`,
/// `URL`), Firestore's own types, and the property wrappers that read an absent field.
protocol FirestoreNativeDecodable {
    /// Decodes the value at `node`; `value` is `nil` when the field is absent (most types then throw
    /// `keyNotFound`).
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> Self
}

extension FirestoreDecoderImpl {
    /// `value`, or `keyNotFound` when the field is absent.
    @inline(__always)
    func required(_ value: FirestoreValue?, at node: CodingPathNode) throws -> FirestoreValue {
        guard let value else { throw keyNotFound(at: node) }
        return value
    }

    /// Decodes `Data` from a base64 string, or throws `dataCorrupted` naming the place.
    func base64(_ text: String, at node: CodingPathNode) throws -> Data {
        guard let data = FirestoreValue.decodeBase64(text) else {
            throw DecodingError.dataCorrupted(
                context(at: node, "expected base64 data, found a string that is not base64"))
        }
        return data
    }
}

extension Bool: FirestoreNativeDecodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> Bool
    { try decoder.bool(decoder.required(value, at: node), at: node) }
}

extension String: FirestoreNativeDecodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> String
    { try decoder.string(decoder.required(value, at: node), at: node) }
}

extension Double: FirestoreNativeDecodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> Double
    { try decoder.double(decoder.required(value, at: node), at: node) }
}

extension Float: FirestoreNativeDecodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> Float
    { try decoder.float(decoder.required(value, at: node), at: node) }
}

/// Every integer type reads an `integerValue` range-checked, or an exact whole `doubleValue`.
protocol FirestoreNativeInteger: FixedWidthInteger, FirestoreNativeDecodable {}

extension FirestoreNativeInteger {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> Self
    { try decoder.integer(Self.self, decoder.required(value, at: node), at: node) }
}

extension Int: FirestoreNativeInteger {}
extension Int8: FirestoreNativeInteger {}
extension Int16: FirestoreNativeInteger {}
extension Int32: FirestoreNativeInteger {}
extension Int64: FirestoreNativeInteger {}
extension UInt: FirestoreNativeInteger {}
extension UInt8: FirestoreNativeInteger {}
extension UInt16: FirestoreNativeInteger {}
extension UInt32: FirestoreNativeInteger {}
extension UInt64: FirestoreNativeInteger {}

extension Date: FirestoreNativeDecodable {
    /// Per ``FirestoreDecoder/dateDecodingStrategy-swift.property``.
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> Date
    {
        let value = try decoder.required(value, at: node)
        switch decoder.context.dateStrategy {
        case .timestamp:
            return try Timestamp.decodeNative(from: value, at: node, in: decoder).dateValue
        case .deferredToDate:
            return try decoder.decodeNested(Date.self, from: value, at: node)
        case .secondsSince1970:
            return Date(timeIntervalSince1970: try decoder.double(value, at: node))
        case .millisecondsSince1970:
            return Date(timeIntervalSince1970: try decoder.double(value, at: node) / 1000)
        case .iso8601:
            let text = try decoder.string(value, at: node)
            do {
                return try Timestamp(rfc3339: text).dateValue
            } catch {
                throw DecodingError.dataCorrupted(
                    decoder.context(at: node, "expected an ISO 8601 date: \(error.message)"))
            }
        case .custom(let decode):
            do {
                return try decoder.moved(to: value, at: node) { try decode(decoder) }
            } catch {
                throw decoder.wrapping(error, at: node)
            }
        }
    }
}

extension Data: FirestoreNativeDecodable {
    /// Per ``FirestoreDecoder/dataDecodingStrategy-swift.property``.
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> Data
    {
        let value = try decoder.required(value, at: node)
        switch decoder.context.dataStrategy {
        case .blob, .base64:
            switch value {
            case .bytes(let data): return data
            case .string(let text): return try decoder.base64(text, at: node)
            default: throw decoder.mismatch(Data.self, value, at: node, expected: "Data (bytesValue or base64 string)")
            }
        case .deferredToData:
            return try decoder.decodeNested(Data.self, from: value, at: node)
        case .custom(let decode):
            do {
                return try decoder.moved(to: value, at: node) { try decode(decoder) }
            } catch {
                throw decoder.wrapping(error, at: node)
            }
        }
    }
}

extension URL: FirestoreNativeDecodable {
    /// From a `stringValue`, as Foundation's JSON coders store a URL.
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> URL
    {
        let text = try decoder.string(decoder.required(value, at: node), at: node)
        guard let url = URL(string: text) else {
            throw DecodingError.dataCorrupted(decoder.context(at: node, "expected a URL, found \"\(text)\""))
        }
        return url
    }
}

extension FirestoreValue: FirestoreNativeDecodable {
    /// Any value, as it is.
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> FirestoreValue
    { try decoder.required(value, at: node) }
}
