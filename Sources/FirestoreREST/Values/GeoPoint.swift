import FirestoreWire

/// A latitude/longitude pair in degrees, Firestore's `geoPointValue`.
public struct GeoPoint: Sendable, Hashable, CustomStringConvertible {
    /// Degrees north, -90 ... 90.
    public let latitude: Double
    /// Degrees east, -180 ... 180.
    public let longitude: Double

    /// Creates a point. Values are not range-checked here; the server refuses out-of-range ones with
    /// `INVALID_ARGUMENT`.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    public var description: String { "GeoPoint(\(latitude), \(longitude))" }
}
