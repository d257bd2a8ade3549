import FirestoreREST
import Foundation

/// Reads an input file (or standard input for `-`) on a thread of its own (``OwnThread``): a read blocks, and
/// the cooperative pool has one thread per core.
package enum InputFile {
    /// The bytes of the file at `path`, or of standard input until its end when `path` is `-`.
    /// - Throws: ``FirestoreError`` `.notFound` when there is no file at `path`, `.failedPrecondition` when it
    ///   cannot be read.
    package static func contents(of path: String) async throws(FirestoreError) -> Data {
        try await OwnThread.run("read \(path)") { () throws(FirestoreError) in try read(path).get() }
    }

    /// The blocking read; runs on the thread ``contents(of:)`` starts.
    private static func read(_ path: String) -> Result<Data, FirestoreError> {
        if path == "-" {
            do {
                return .success(try FileHandle.standardInput.readToEnd() ?? Data())
            } catch {
                return .failure(
                    FirestoreError(code: .failedPrecondition, message: "cannot read standard input: \(error)"))
            }
        }
        guard FileManager.default.fileExists(atPath: path) else {
            return .failure(FirestoreError(code: .notFound, message: "no file at \(path)"))
        }
        do {
            return .success(try Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            return .failure(FirestoreError(code: .failedPrecondition, message: "cannot read \(path): \(error)"))
        }
    }
}
