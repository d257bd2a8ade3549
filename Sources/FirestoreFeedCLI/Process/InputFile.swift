import FirestoreREST
import Foundation

/// Reads an input file (or standard input for `-`) on a thread of its own (``OwnThread``): a read blocks, and
/// the cooperative pool has one thread per core.
package enum InputFile {
    /// Runs `body` on a thread of its own with the lines of the file at `path` (of standard input, until its
    /// end, when `path` is `-`), each at most `maximumLineLength` bytes (``InputLines``), and returns its result.
    /// `name` names the input in errors.
    /// - Throws: ``FirestoreError`` `.notFound` when there is no file at `path`, `.failedPrecondition` when it
    ///   cannot be opened or read, and what `body` throws (``InputLines/next()``'s errors among them).
    package static func withLines<T: Sendable>(
        of path: String, name: String, maximumLineLength: Int,
        _ body: @escaping @Sendable (inout InputLines) throws(FirestoreError) -> T
    ) async throws(FirestoreError) -> T {
        try await OwnThread.run("read \(path)") { () throws(FirestoreError) in
            let handle = try open(path).get()
            // Standard input belongs to the process; only a file opened here is closed here.
            defer { if path != "-" { try? handle.close() } }
            var lines = InputLines(reading: handle, name: name, maximumLength: maximumLineLength)
            return try body(&lines)
        }
    }

    /// Opens `path` for reading (standard input for `-`); runs on the thread
    /// ``withLines(of:name:maximumLineLength:_:)`` starts.
    private static func open(_ path: String) -> Result<FileHandle, FirestoreError> {
        if path == "-" { return .success(FileHandle.standardInput) }
        guard FileManager.default.fileExists(atPath: path) else {
            return .failure(FirestoreError(code: .notFound, message: "no file at \(path)"))
        }
        do {
            return .success(try FileHandle(forReadingFrom: URL(fileURLWithPath: path)))
        } catch {
            return .failure(FirestoreError(code: .failedPrecondition, message: "cannot read \(path): \(error)"))
        }
    }
}
