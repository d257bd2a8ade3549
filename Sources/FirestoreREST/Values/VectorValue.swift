import FirestoreWire

/// A vector embedding: a list of doubles that Firestore stores, indexes and searches as a vector (Firestore docs,
/// "Search with vector embeddings": https://cloud.google.com/firestore/docs/vector-search ; the SDKs'
/// `VectorValue` and `FieldValue.vector(_:)`).
///
/// On the wire a vector is a map value, `{"mapValue": {"fields": {"__type__": {"stringValue": "__vector__"},
/// "value": {"arrayValue": {"values": [{"doubleValue": 1.0}, ...]}}}}}`; ``firestoreValue`` builds that map and
/// ``init(_:)-(FirestoreValue)`` reads it back. Only a `VectorValue` becomes a vector: a `[Double]` written or
/// encoded is an array, as in the Firebase SDKs.
///
/// ```swift
/// try await db.document("items/apple").setData(["embedding": .vector([0.1, 0.3, 0.4])])
/// let nearest = try await db.collection("items")
///     .findNearest(vectorField: "embedding", queryVector: VectorValue([0.1, 0.3, 0.5]), limit: 5,
///                  distanceMeasure: .cosine)
///     .getDocuments()
/// ```
///
/// Equality is element by element with the rules of ``FirestoreValue``: NaN equals NaN, and `-0.0` equals `0.0`.
public struct VectorValue: Sendable, CustomStringConvertible {
    /// The vector's elements, in order.
    public let array: [Double]

    /// A vector of these elements (Firestore refuses an empty vector, and production one of more than 2,048
    /// dimensions, when it is written or queried).
    public init(_ array: [Double]) {
        self.array = array
    }

    /// The vector stored in `value`: a map whose `__type__` is the string `"__vector__"` and whose `value` is an
    /// array of numbers (integers count when a `Double` holds them exactly).
    /// - Throws: ``FirestoreError`` `.invalidArgument` saying what `value` is instead: another type, a map that is
    ///   not a vector, a `value` that is not an array, or an element that is not a number.
    /// - Complexity: O(n) in the number of elements.
    public init(_ value: FirestoreValue) throws(FirestoreError) {
        guard case .map(let fields) = value, fields["__type__"] == .string("__vector__") else {
            throw .invalidArgument("expected a vector (a map with __type__ \"__vector__\"), found \(value.typeName)")
        }
        guard fields.count == 2, case .array(let elements)? = fields["value"] else {
            throw .invalidArgument(
                "a vector map holds exactly __type__ and value, an array of numbers; found the fields "
                    + fields.keys.sorted().joined(separator: ", "))
        }
        var numbers: [Double] = []
        numbers.reserveCapacity(elements.count)
        for (position, element) in elements.enumerated() {
            switch element {
            case .double(let number): numbers.append(number)
            case .integer(let number):
                guard let exact = Double(exactly: number) else {
                    throw .invalidArgument("vector element \(position): \(number) has no exact Double")
                }
                numbers.append(exact)
            default:
                throw .invalidArgument("vector element \(position) is \(element.typeName), not a number")
            }
        }
        self.array = numbers
    }

    /// The vector as Firestore stores it: the map `{"__type__": "__vector__", "value": [doubles]}`.
    /// - Complexity: O(n) in the number of elements.
    public var firestoreValue: FirestoreValue {
        .map(["__type__": .string("__vector__"), "value": .array(array.map { .double($0) })])
    }

    public var description: String { "VectorValue(\(array))" }
}

extension VectorValue: Hashable {
    public static func == (lhs: VectorValue, rhs: VectorValue) -> Bool {
        lhs.array.elementsEqual(rhs.array) { $0 == $1 || ($0.isNaN && $1.isNaN) }
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(array.count)
        for element in array {
            // Equal elements hash alike: every NaN is one value, and -0.0 == 0.0 (as FirestoreValue hashes).
            hasher.combine(element.isNaN ? Double.nan.bitPattern : (element == 0 ? 0 : element).bitPattern)
        }
    }
}

extension VectorValue: FirestoreValueConvertible {}

extension FirestoreValue {
    /// The vector value with these elements (the map ``VectorValue/firestoreValue`` builds).
    public static func vector(_ elements: [Double]) -> FirestoreValue {
        VectorValue(elements).firestoreValue
    }

    /// This value as a ``VectorValue`` when it is one (a map with `__type__` `"__vector__"` and a `value` array of
    /// numbers), else `nil`.
    public var vectorValue: VectorValue? {
        guard case .map(let fields) = self, fields["__type__"] == .string("__vector__") else { return nil }
        return try? VectorValue(self)
    }
}

extension FieldValue {
    /// `FieldValue.vector(_:)` of the SDKs: writes these elements as a vector (``VectorValue``).
    public static func vector(_ elements: [Double]) -> FieldValue {
        .value(VectorValue(elements).firestoreValue)
    }
}
