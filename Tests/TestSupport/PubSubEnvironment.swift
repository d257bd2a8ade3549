import Foundation

/// Where the Pub/Sub tests find the Pub/Sub emulator: `Scripts/test` starts one (`Scripts/emulator --pubsub start`)
/// and exports `PUBSUB_EMULATOR_HOST`, the variable Google's Pub/Sub clients read. Without it the tests are skipped
/// with a message, except under CI (`CI` set and not `false`), where they run and fail.
package enum PubSubEnvironment {
    /// `PUBSUB_EMULATOR_HOST`.
    package static let variable = TestServerVariable(
        name: "PUBSUB_EMULATOR_HOST", howToSet: "$(Scripts/emulator --pubsub start)", server: "the Pub/Sub emulator")

    /// `HOST:PORT`, or nil when the variable is unset or blank.
    package static var host: String? { variable.value }

    /// Whether the Pub/Sub tests run: with a host, or under CI (where a missing host fails them).
    package static var enabled: Bool { variable.enabled }

    /// Why the Pub/Sub tests were skipped.
    package static var skipMessage: String { variable.skipMessage }

    /// `HOST:PORT`; throws (which fails the calling test) when unset.
    package static func requireHost() throws -> String { try variable.require() }

    /// A fresh topic or subscription ID for one test: `<label>-<8 hex>`.
    package static func uniqueID(_ label: String) -> String {
        let hex = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return label + "-" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
