/// The package's name and version, as sent in the `User-Agent` header of every request (the default
/// `CurlTransport.Configuration.userAgent`) and printed by `firestore-feed --version`.
package enum FirestoreFeedPackage {
    /// `firestore-feed-swift`.
    package static let name = "firestore-feed-swift"
    /// The package version (semantic versioning), e.g. `0.1.0`: the first heading of `CHANGELOG.md`.
    package static let version = "0.1.0"
    /// `firestore-feed-swift/0.1.0`: the default `User-Agent` of ``CurlTransport`` and the gRPC channel.
    package static var userAgent: String { "\(name)/\(version)" }
}
