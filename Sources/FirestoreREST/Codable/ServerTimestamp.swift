import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension Timestamp: ServerTimestampWrappable {
    /// The timestamp itself.
    public static func wrap(_ timestamp: Timestamp) throws -> Timestamp { timestamp }
    /// The timestamp itself.
    public static func unwrap(_ value: Timestamp) throws -> Timestamp { value }
}

extension Date: ServerTimestampWrappable {
    /// ``Timestamp/dateValue``.
    public static func wrap(_ timestamp: Timestamp) throws -> Date { timestamp.dateValue }
    /// ``Timestamp/init(date:)`` (rounded to the microsecond).
    public static func unwrap(_ value: Date) throws -> Timestamp { Timestamp(date: value) }
}

/// A timestamp the server fills in when it is `nil`, as the SDK's `@ServerTimestamp`
/// (the Firebase Apple SDK's `@ServerTimestamp`; REST reference: `FieldTransform.setToServerValue`):
///
/// ```swift
/// struct Post: Codable {
///     var title: String
///     @ServerTimestamp var updatedAt: Date?
/// }
/// try await ref.setData(from: Post(title: "t"))   // updatedAt: the commit time
/// ```
///
/// - Encoding with ``FirestoreEncoder``: `nil` is ``FieldValue/serverTimestamp`` (the `REQUEST_TIME`
///   transform; ``FirestoreEncoder/encode(_:)`` refuses it, ``FirestoreEncoder/encodeForWrite(_:)`` and
///   `setData(from:)` send it); a value is a `timestampValue` (through ``ServerTimestampWrappable/unwrap(_:)``,
///   whose error fails the encoding).
/// - Decoding: an absent field or `nullValue` is `nil` (a new optional property does not break older documents:
///   `CodableFieldCaseTests.c14AbsentOrNullServerTimestampIsNil`); otherwise a ``Timestamp`` (a `timestampValue` or
///   `{seconds, nanoseconds}` map) wrapped. The absent-field rule holds with any decoder (a
///   `KeyedDecodingContainer.decode` overload).
/// - With any other encoder, `nil` throws (a sentinel has no plain form); a value encodes as ``Timestamp``
///   does there.
@propertyWrapper
public struct ServerTimestamp<Value: ServerTimestampWrappable & Codable>: Codable {
    /// The timestamp, or `nil` to let the server set it.
    public var wrappedValue: Value?

    /// A property holding `value`; `nil` lets the server set the time when the model is written.
    public init(wrappedValue value: Value?) {
        self.wrappedValue = value
    }

    /// `nil` for `nullValue`, else a ``Timestamp`` wrapped.
    /// - Throws: `DecodingError` for another value type, or the wrap's error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            wrappedValue = nil
        } else {
            wrappedValue = try Value.wrap(container.decode(Timestamp.self))
        }
    }

    /// The sentinel for `nil` (Firestore encoder only), else the unwrapped ``Timestamp``.
    /// - Throws: `EncodingError.invalidValue` for `nil` with another encoder, or the unwrap's error.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let wrappedValue {
            try container.encode(Value.unwrap(wrappedValue))
        } else {
            try container.encode(FieldValue.serverTimestamp)
        }
    }
}

extension ServerTimestamp: Equatable where Value: Equatable {}
extension ServerTimestamp: Hashable where Value: Hashable {}
extension ServerTimestamp: Sendable where Value: Sendable {}

extension ServerTimestamp: FirestoreNativeDecodable, FirestoreNativeEncodable {
    static func decodeNative(from value: FirestoreValue?, at node: CodingPathNode, in decoder: FirestoreDecoderImpl)
        throws -> ServerTimestamp<Value>
    {
        switch value {
        case nil, .null?: return ServerTimestamp(wrappedValue: nil)
        case let value?:
            let timestamp = try Timestamp.decodeNative(from: value, at: node, in: decoder)
            do {
                return ServerTimestamp(wrappedValue: try Value.wrap(timestamp))
            } catch {
                throw decoder.wrapping(error, at: node)
            }
        }
    }

    func encodeNative(at node: CodingPathNode, in encoder: FirestoreEncoderImpl) throws -> EncodedNode? {
        guard let wrappedValue else { return .value(.serverTimestamp) }
        do {
            return .value(.value(.timestamp(try Value.unwrap(wrappedValue))))
        } catch {
            throw encoder.wrapping(error, value: wrappedValue, at: node)
        }
    }
}
