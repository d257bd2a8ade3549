import FirestoreREST
import Foundation

/// How a member takes part in a feed group (``FeedGroup``).
public struct FeedGroupOptions: Sendable {
    /// This member's ID, unique in the group (a Firestore document ID); by default `HOST-PID-RANDOM`. Two live
    /// processes must never share one: a restarted process may reuse its ID (its old leases are taken back once
    /// they expire, or at once when it released them on shutdown).
    public var member: String
    /// The shard count to create the group with (1...1,000); `nil` takes the stored count, or 1 for a new group.
    /// Fixed when the group is created.
    public var shards: Int?
    /// The collection holding the groups' documents: the group is `{root}/{name}`, its leases
    /// `{root}/{name}/shards/{n}`, its members `{root}/{name}/members/{id}`.
    public var root: String
    /// How long a lease lasts without renewal: a member whose heartbeat another sees unchanged this long is taken as
    /// dead, and its leases are taken over. Default 15 s.
    public var leaseDuration: Duration
    /// How often a member renews its leases and writes their checkpoints, and looks for leases to take. At most
    /// half the lease length. Default 5 s.
    public var renewInterval: Duration
    /// The Listen feeds' policy (reconnection back-off, liveness bound).
    public var policy: PollingPolicy

    /// Options with the defaults above.
    public init(
        member: String? = nil, shards: Int? = nil, root: String = "feedGroups", leaseDuration: Duration = .seconds(15),
        renewInterval: Duration = .seconds(5), policy: PollingPolicy = PollingPolicy()
    ) {
        self.member = member ?? Self.defaultMemberID()
        self.shards = shards
        self.root = root
        self.leaseDuration = leaseDuration
        self.renewInterval = renewInterval
        self.policy = policy
    }

    /// `HOST-PID-XXXXXX`: the host name, the process ID and 6 random hexadecimal digits.
    public static func defaultMemberID() -> String {
        let host = ProcessInfo.processInfo.hostName.replacingOccurrences(of: "/", with: "-")
        let random = String(UInt32.random(in: 0..<0x100_0000), radix: 16)
        return "\(host)-\(ProcessInfo.processInfo.processIdentifier)-" + String(repeating: "0", count: 6 - random.count)
            + random
    }

    /// Checks the options.
    /// - Throws: `FirestoreError` `.invalidArgument` naming the option that is wrong.
    package func check() throws(FirestoreError) {
        if member.isEmpty || member.contains("/") || member == "." || member == ".." || member.utf8.count > 1500
            || (member.hasPrefix("__") && member.hasSuffix("__"))
        {
            throw .invalidArgument("feed group member ID \"\(member)\" is not a Firestore document ID")
        }
        if let shards, !(1...1000).contains(shards) {
            throw .invalidArgument("a feed group has 1 to 1,000 shards, not \(shards)")
        }
        if leaseDuration < .seconds(1) || renewInterval <= .zero || renewInterval * 2 > leaseDuration {
            throw .invalidArgument(
                "feed group lease length \(leaseDuration) and renewal interval \(renewInterval): the lease must be at "
                    + "least 1 s and the interval at most half of it")
        }
        if root.isEmpty || root.split(separator: "/").count % 2 == 0 {
            throw .invalidArgument("feed group root \"\(root)\" is not a collection path")
        }
    }
}
