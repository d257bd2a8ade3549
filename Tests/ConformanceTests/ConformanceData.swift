import FirestoreREST
import Foundation

/// Google's conformance test files (copied from googleapis/conformance-tests, see Resources/conformance/SOURCE.md).
enum ConformanceData {
    struct LoadError: Error, CustomStringConvertible {
        let description: String
    }

    static var directory: URL {
        get throws {
            guard let url = Bundle.module.url(forResource: "Resources/conformance", withExtension: nil) else {
                throw LoadError(description: "Resources/conformance is missing from the test bundle")
            }
            return url
        }
    }

    /// The file names (without `.json`) that start with `prefix`, sorted.
    static func names(prefix: String) -> [String] {
        guard let url = try? directory,
            let entries = try? FileManager.default.contentsOfDirectory(atPath: url.path)
        else { return [] }
        return entries.filter { $0.hasPrefix(prefix) && $0.hasSuffix(".json") }
            .map { String($0.dropLast(5)) }.sorted()
    }

    /// The single test of file `name`.
    static func test(_ name: String) throws -> JSONValue {
        let data = try Data(contentsOf: try directory.appendingPathComponent(name + ".json"))
        guard case .array(let tests)? = try JSONValue.parse(data)["tests"], let first = tests.first else {
            throw LoadError(description: "\(name).json has no tests")
        }
        return first
    }
}
