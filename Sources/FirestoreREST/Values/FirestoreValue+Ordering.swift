import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FirestoreValue {
    /// Firestore's total order of values, as the server sorts query results ("Ordering of value types" in
    /// the Firestore data-types documentation): null < booleans < numbers (integers and doubles compared by
    /// value, NaN below every other number) < timestamps < strings (UTF-8 byte order) < bytes < references
    /// (segment by segment) < geo points (latitude, then longitude) < arrays (element by element, then
    /// length) < vectors (by dimension, then element by element) < maps (sorted keys and their values pairwise,
    /// then size).
    ///
    /// A vector (a vector embedding, `FieldValue.vector` in the SDKs) is a map on the wire: `mapValue` with
    /// `__type__` = `stringValue` `"__vector__"` and `value` = an `arrayValue` of doubles
    /// (https://firebase.google.com/docs/firestore/manage-data/data-types , "Vector": "By dimension, then by
    /// individual element values"; it sorts after arrays and before maps). Any map whose `__type__` is
    /// `"__vector__"` ranks as a vector, as in the SDKs; a `value` that is not an array counts as dimension 0.
    /// `ValueOrderingTests` and `VectorOrderingLiveTests` (the emulator's order) check it.
    ///
    /// - Returns: a negative number, zero or a positive number as `lhs` sorts before, with or after `rhs`.
    /// - Complexity: O(n) in the size of the smaller value (maps: O(k log k) to sort their keys).
    public static func compare(_ lhs: FirestoreValue, _ rhs: FirestoreValue) -> Int {
        let lhsRank = lhs.typeRank
        let rhsRank = rhs.typeRank
        if lhsRank != rhsRank { return lhsRank < rhsRank ? -1 : 1 }
        switch (lhs, rhs) {
        case (.boolean(let a), .boolean(let b)): return a == b ? 0 : (a ? 1 : -1)
        case (.integer(let a), .integer(let b)): return sign(a, b)
        case (.double(let a), .double(let b)): return compareDoubles(a, b)
        case (.integer(let a), .double(let b)): return compareIntegerToDouble(a, b)
        case (.double(let a), .integer(let b)): return -compareIntegerToDouble(b, a)
        case (.timestamp(let a), .timestamp(let b)): return a == b ? 0 : (a < b ? -1 : 1)
        case (.string(let a), .string(let b)): return compareBytes(a.utf8, b.utf8)
        case (.bytes(let a), .bytes(let b)): return compareBytes(a, b)
        case (.reference(let a), .reference(let b)): return compareResourceNames(a, b)
        case (.geoPoint(let a), .geoPoint(let b)):
            let latitude = compareDoubles(a.latitude, b.latitude)
            return latitude != 0 ? latitude : compareDoubles(a.longitude, b.longitude)
        case (.array(let a), .array(let b)):
            for (x, y) in zip(a, b) {
                let order = compare(x, y)
                if order != 0 { return order }
            }
            return sign(a.count, b.count)
        case (.map(let a), .map(let b)) where lhsRank == Self.vectorRank:
            let aElements = Self.vectorElements(a)
            let bElements = Self.vectorElements(b)
            if aElements.count != bElements.count { return sign(aElements.count, bElements.count) }
            for (x, y) in zip(aElements, bElements) {
                let order = compare(x, y)
                if order != 0 { return order }
            }
            return 0
        case (.map(let a), .map(let b)):
            let aKeys = a.keys.sorted { compareBytes($0.utf8, $1.utf8) < 0 }
            let bKeys = b.keys.sorted { compareBytes($0.utf8, $1.utf8) < 0 }
            for (x, y) in zip(aKeys, bKeys) {
                let keyOrder = compareBytes(x.utf8, y.utf8)
                if keyOrder != 0 { return keyOrder }
                if let xValue = a[x], let yValue = b[y] {
                    let order = compare(xValue, yValue)
                    if order != 0 { return order }
                }
            }
            return sign(aKeys.count, bKeys.count)
        default: return 0
        }
    }

    /// Resource names compared segment by segment (so `c/a/x` sorts before `c/a-b`), without splitting:
    /// walking both names byte by byte with `/` ranking below every other byte and the end of a name below
    /// `/` is the same order, at no allocation.
    /// - Complexity: O(n) in the length of the common prefix.
    public static func compareResourceNames(_ lhs: String, _ rhs: String) -> Int {
        // Contiguous bytes (every native string): skip the common prefix, then rank the first bytes that differ.
        let contiguous = lhs.utf8.withContiguousStorageIfAvailable { left in
            rhs.utf8.withContiguousStorageIfAvailable { right in compareResourceNameBytes(left, right) }
        }
        if let result = contiguous ?? nil { return result }
        var left = lhs.utf8.makeIterator()
        var right = rhs.utf8.makeIterator()
        func rank(_ byte: UInt8?) -> Int {
            guard let byte else { return -2 }
            return byte == UInt8(ascii: "/") ? -1 : Int(byte)
        }
        while true {
            let a = rank(left.next())
            let b = rank(right.next())
            if a != b { return a < b ? -1 : 1 }
            if a == -2 { return 0 }
        }
    }

    /// ``compareResourceNames(_:_:)`` on UTF-8 bytes.
    private static func compareResourceNameBytes(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>)
        -> Int
    {
        let common = min(lhs.count, rhs.count)
        var index = 0
        // Eight bytes at a time over the common prefix (the names of one collection share 50 bytes or more).
        if let left = UnsafeRawPointer(lhs.baseAddress), let right = UnsafeRawPointer(rhs.baseAddress) {
            while index + 8 <= common,
                left.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    == right.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            {
                index += 8
            }
        }
        while index < common, lhs[index] == rhs[index] { index += 1 }
        func rank(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
            guard index < bytes.count else { return -2 }
            return bytes[index] == UInt8(ascii: "/") ? -1 : Int(bytes[index])
        }
        let (a, b) = (rank(lhs), rank(rhs))
        return a == b ? 0 : a < b ? -1 : 1
    }

    var typeRank: Int {
        switch self {
        case .null: return 0
        case .boolean: return 1
        case .integer, .double: return 2
        case .timestamp: return 3
        case .string: return 4
        case .bytes: return 5
        case .reference: return 6
        case .geoPoint: return 7
        case .array: return 8
        case .map(let fields): return Self.isVector(fields) ? Self.vectorRank : 10
        }
    }

    /// The rank of vectors: after arrays (8), before maps (10).
    private static let vectorRank = 9

    /// Whether a map is a vector: its `__type__` field is the string `"__vector__"`.
    private static func isVector(_ fields: [String: FirestoreValue]) -> Bool {
        guard case .string(let type)? = fields["__type__"] else { return false }
        return type.utf8Equals("__vector__")
    }

    /// A vector's elements: its `value` array, or none when `value` is missing or not an array.
    private static func vectorElements(_ fields: [String: FirestoreValue]) -> [FirestoreValue] {
        guard case .array(let elements)? = fields["value"] else { return [] }
        return elements
    }

    private static func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a == b ? 0 : (a < b ? -1 : 1) }

    private static func compareDoubles(_ a: Double, _ b: Double) -> Int {
        if a.isNaN { return b.isNaN ? 0 : -1 }
        if b.isNaN { return 1 }
        return sign(a, b)
    }

    /// Exact comparison of an Int64 with a Double (no rounding of large integers).
    private static func compareIntegerToDouble(_ a: Int64, _ b: Double) -> Int {
        if b.isNaN { return 1 }
        if b >= 9_223_372_036_854_775_808.0 { return -1 }
        if b < -9_223_372_036_854_775_808.0 { return 1 }
        let whole = b.rounded(.down)
        let wholeInteger = Int64(whole)
        if a != wholeInteger { return a < wholeInteger ? -1 : 1 }
        return whole == b ? 0 : -1
    }

    private static func compareBytes<A: Sequence<UInt8>, B: Sequence<UInt8>>(_ a: A, _ b: B) -> Int {
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }
}
