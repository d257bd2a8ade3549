import Foundation

/// Where the Pub/Sub tests find the Pub/Sub emulator: `Scripts/test` starts one (`Scripts/emulator --pubsub start`)
/// and exports `PUBSUB_EMULATOR_HOST`, the variable Google's Pub/Sub clients read. Without it the tests are skipped
/// with a message, except under CI (`CI` set and not `false`), where they run and fail.
package enum PubSubEnvironment {
    /// The environment variable that names the emulator, `HOST:PORT`.
    package static let hostVariable = "PUBSUB_EMULATOR_HOST"

    /// The error thrown by ``requireHost()`` when no emulator is configured.
    package struct MissingHost: Error, CustomStringConvertible, LocalizedError {
        package var description: String {
            "\(hostVariable) is not set: run the tests through Scripts/test, which starts the Pub/Sub emulator "
                + "(or export \(hostVariable)=$(Scripts/emulator --pubsub start))"
        }
        package var errorDescription: String? { description }
    }

    /// `HOST:PORT`, or nil when the variable is unset or blank.
    package static var host: String? {
        let value = (ProcessInfo.processInfo.environment[hostVariable] ?? "").trimmingCharacters(in: .whitespaces)
        return value.isEmpty ? nil : value
    }

    /// Whether the Pub/Sub tests run: with a host, or under CI (where a missing host fails them).
    package static var enabled: Bool { host != nil || PostgresEnvironment.isCI }

    /// Why the Pub/Sub tests were skipped.
    package static let skipMessage =
        "PUBSUB_EMULATOR_HOST is not set (run the tests through Scripts/test, which starts the Pub/Sub emulator)"

    /// `HOST:PORT`; throws ``MissingHost`` (which fails the calling test) when unset.
    package static func requireHost() throws -> String {
        guard let host else { throw MissingHost() }
        return host
    }

    /// A fresh topic or subscription ID for one test: `<label>-<8 hex>`.
    package static func uniqueID(_ label: String) -> String {
        let hex = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        return label + "-" + String(repeating: "0", count: 8 - hex.count) + hex
    }
}
