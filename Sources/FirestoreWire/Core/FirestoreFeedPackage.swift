/// The package's name and version, as sent in the `User-Agent` header of every request.
public enum FirestoreFeedPackage {
    /// `firestore-feed-swift`.
    public static let name = "firestore-feed-swift"
    /// The package version (semantic versioning), e.g. `0.1.0`.
    public static let version = "0.1.0"
    /// `firestore-feed-swift/0.1.0`: the default ``CurlTransport/Configuration/userAgent``.
    public static var userAgent: String { "\(name)/\(version)" }
}
