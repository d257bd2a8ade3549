import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A Swift value that stands for a Firestore value in a filter or a write: `Bool`, the integer types,
/// `Double`, `Float`, `String`, `Data`, `Date`, ``Timestamp``, ``GeoPoint``, ``DocumentReference``,
/// ``FirestoreValue``, `NSNull`-free `Optional` (nil is `null`), arrays and string-keyed dictionaries of them.
///
/// `whereField("count", isEqualTo: 3)` and `whereField("tags", arrayContainsAny: ["red", "green"])` use it.
public protocol FirestoreValueConvertible: Sendable {
    /// The Firestore value this stands for.
    var firestoreValue: FirestoreValue { get }
}

extension FirestoreValue: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { self }
}
extension Bool: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .boolean(self) }
}
extension Int: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .integer(Int64(self)) }
}
extension Int64: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .integer(self) }
}
extension Int32: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .integer(Int64(self)) }
}
extension Int16: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .integer(Int64(self)) }
}
extension Int8: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .integer(Int64(self)) }
}
extension UInt32: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .integer(Int64(self)) }
}
extension UInt16: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .integer(Int64(self)) }
}
extension UInt8: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .integer(Int64(self)) }
}
extension Double: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .double(self) }
}
extension Float: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .double(Double(self)) }
}
extension String: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .string(self) }
}
extension Data: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .bytes(self) }
}
extension Date: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .timestamp(Timestamp(date: self)) }
}
extension Timestamp: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .timestamp(self) }
}
extension GeoPoint: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .geoPoint(self) }
}
extension DocumentReference: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .reference(resourceName) }
}
extension Optional: FirestoreValueConvertible where Wrapped: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { self?.firestoreValue ?? .null }
}
extension Array: FirestoreValueConvertible where Element: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .array(map(\.firestoreValue)) }
}
extension Dictionary: FirestoreValueConvertible where Key == String, Value: FirestoreValueConvertible {
    public var firestoreValue: FirestoreValue { .map(mapValues(\.firestoreValue)) }
}
