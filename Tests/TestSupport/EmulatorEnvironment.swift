import Foundation

/// Where the live tests find the Firestore emulator.
///
/// `Scripts/test` starts an emulator on a free loopback port and exports
/// `FIRESTORE_EMULATOR_HOST=127.0.0.1:PORT` (host and port, no scheme) before `swift test`.
package enum EmulatorEnvironment {
    /// The environment variable that names the emulator (`host:port`).
    package static let hostVariable = "FIRESTORE_EMULATOR_HOST"

    /// The error thrown by `requireHost()` when no emulator is configured.
    package struct MissingHost: Error, CustomStringConvertible, LocalizedError {
        package var description: String {
            "FIRESTORE_EMULATOR_HOST is not set: run the tests through Scripts/test, which starts the emulator"
        }
        package var errorDescription: String? { description }
    }

    /// `host:port` of the emulator, or nil when `FIRESTORE_EMULATOR_HOST` is unset or blank.
    package static var host: String? {
        guard let raw = ProcessInfo.processInfo.environment[hostVariable] else { return nil }
        let value = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        return value.isEmpty ? nil : value
    }

    /// `host:port` of the emulator; throws `MissingHost` (which fails the calling test) when unset.
    package static func requireHost() throws -> String {
        guard let host else { throw MissingHost() }
        return host
    }

    /// A fresh project id for one test: `demo-<label>-<8 hex>`, lowercased, only `[a-z0-9-]`,
    /// at most 30 characters. Projects are isolated on the emulator, so each test gets its own
    /// data; the `demo-` prefix is the Firebase convention for projects that need no real one.
    package static func uniqueProjectID(_ label: String) -> String {
        let maxLength = 30
        let prefix = "demo-"
        let suffix = randomHex(count: 8)
        let labelBudget = maxLength - prefix.count - 1 - suffix.count  // 16

        var cleaned = ""
        var lastWasDash = true  // drops leading dashes
        for scalar in label.lowercased().unicodeScalars {
            let isAllowed = ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar)
            if isAllowed {
                cleaned.unicodeScalars.append(scalar)
                lastWasDash = false
            } else if !lastWasDash {
                cleaned.append("-")
                lastWasDash = true
            }
        }
        cleaned = String(cleaned.prefix(labelBudget))
        while cleaned.hasSuffix("-") {
            cleaned.removeLast()
        }
        if cleaned.isEmpty {
            cleaned = "test"
        }
        return prefix + cleaned + "-" + suffix
    }

    private static func randomHex(count: Int) -> String {
        let digits = Array("0123456789abcdef")
        var generator = SystemRandomNumberGenerator()
        return String((0..<count).map { _ in digits[Int.random(in: 0..<digits.count, using: &generator)] })
    }
}
