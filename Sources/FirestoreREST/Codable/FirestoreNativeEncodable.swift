import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A type ``FirestoreEncoderImpl`` encodes itself instead of calling its `encode(to:)`: the primitives (so an
/// array of them needs no encoder per element), Foundation types with a Firestore form, Firestore's own types
/// and the property wrappers with a Firestore meaning.
protocol FirestoreNativeEncodable {
    /// The encoded value at `node`, or `nil` to write nothing there.
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode?
}

extension Bool: FirestoreNativeEncodable {
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(.boolean(self)))
    }
}

extension String: FirestoreNativeEncodable {
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(.string(self)))
    }
}

extension Double: FirestoreNativeEncodable {
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(.double(self)))
    }
}

extension Float: FirestoreNativeEncodable {
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(.double(Double(self))))
    }
}

extension FirestoreNativeInteger {
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(try encoder.integer(self, at: node))
    }
}

extension Int: FirestoreNativeEncodable {}
extension Int8: FirestoreNativeEncodable {}
extension Int16: FirestoreNativeEncodable {}
extension Int32: FirestoreNativeEncodable {}
extension Int64: FirestoreNativeEncodable {}
extension UInt: FirestoreNativeEncodable {}
extension UInt8: FirestoreNativeEncodable {}
extension UInt16: FirestoreNativeEncodable {}
extension UInt32: FirestoreNativeEncodable {}
extension UInt64: FirestoreNativeEncodable {}

extension Date: FirestoreNativeEncodable {
    /// Per ``FirestoreEncoder/dateEncodingStrategy-swift.property``.
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        switch encoder.context.dateStrategy {
        case .timestamp: return .value(.value(.timestamp(Timestamp(date: self))))
        case .deferredToDate: return .box(try encoder.encodeNested(at: node) { try self.encode(to: $0) })
        case .secondsSince1970: return .value(.value(.double(timeIntervalSince1970)))
        case .millisecondsSince1970: return .value(.value(.double(timeIntervalSince1970 * 1000)))
        case .iso8601: return .value(.value(.string(formatted(.iso8601))))
        case .custom(let encode):
            do {
                return .box(try encoder.encodeNested(at: node) { try encode(self, $0) })
            } catch {
                throw encoder.wrapping(error, value: self, at: node)
            }
        }
    }
}

extension Data: FirestoreNativeEncodable {
    /// Per ``FirestoreEncoder/dataEncodingStrategy-swift.property``.
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        switch encoder.context.dataStrategy {
        case .blob: return .value(.value(.bytes(self)))
        case .base64: return .value(.value(.string(base64EncodedString())))
        case .deferredToData: return .box(try encoder.encodeNested(at: node) { try self.encode(to: $0) })
        case .custom(let encode):
            do {
                return .box(try encoder.encodeNested(at: node) { try encode(self, $0) })
            } catch {
                throw encoder.wrapping(error, value: self, at: node)
            }
        }
    }
}

extension URL: FirestoreNativeEncodable {
    /// Its absolute string, as Foundation's JSON coders write a URL.
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(.string(absoluteString)))
    }
}

extension FirestoreValue: FirestoreNativeEncodable {
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(.value(self))
    }
}

extension FieldValue: FirestoreNativeEncodable {
    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        .value(self)
    }
}
