#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The result of one commit.
package struct CommitResponse: Sendable, Hashable {
    /// One `updateTime` per write, in request order (`nil` for a delete).
    package var updateTimes: [Timestamp?]
    /// When the commit was applied.
    package var commitTime: Timestamp?
}
