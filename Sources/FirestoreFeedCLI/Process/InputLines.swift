import FirestoreREST
import Foundation

/// The lines of an `import` file, read a chunk at a time: at most one line of up to ``maximumLength`` bytes and
/// one chunk are held, so a file with one enormous line (or with no line breaks at all) ends in an error naming
/// that line once ``maximumLength`` bytes of it are read, instead of being read whole. Reads block: use it on a
/// thread of its own (``InputFile/withLines(of:name:maximumLineLength:_:)``).
package struct InputLines {
    /// The bytes read at a time.
    package static let defaultChunkSize = 64 * 1024

    /// The most bytes a line may have, its line break (`\n`) not counted.
    package let maximumLength: Int
    /// The input's name in errors: its path, or `standard input`.
    package let name: String
    private let handle: FileHandle
    private let chunkSize: Int
    /// Bytes read and not yet returned: the rest of the current line from ``start`` on.
    private var buffer: [UInt8] = []
    /// Where in ``buffer`` the next line starts.
    private var start = 0
    /// Where in ``buffer`` the search for the next line break resumes: the bytes before it hold none, so a long
    /// line read over many chunks is searched once, not once per chunk.
    private var searched = 0
    private var atEnd = false
    /// The number (from 1) of the last line ``next()`` returned.
    package private(set) var number = 0

    /// Reads the lines of `handle`, at most `maximumLength` bytes each, `chunkSize` bytes at a time; `name`
    /// names the input in errors.
    package init(reading handle: FileHandle, name: String, maximumLength: Int, chunkSize: Int = defaultChunkSize) {
        self.handle = handle
        self.name = name
        self.maximumLength = maximumLength
        self.chunkSize = max(1, chunkSize)
    }

    /// The next line without its `\n` (a `\r` before it stays), or `nil` after the last one; a last line
    /// without a `\n` is a line, and an input ending in `\n` has no empty line after it. The line is a slice
    /// of the buffer, so it is not copied; after an error, nothing more is to be read.
    /// - Throws: ``FirestoreError`` `.invalidArgument` as `NAME:LINE: the line is longer than N bytes, ...` for
    ///   a line over ``maximumLength`` bytes, read no further than that; `.failedPrecondition` when the input
    ///   cannot be read.
    package mutating func next() throws(FirestoreError) -> ArraySlice<UInt8>? {
        while true {
            if let lineBreak = buffer[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                number += 1
                guard lineBreak - start <= maximumLength else { throw tooLong() }
                let line = buffer[start..<lineBreak]
                start = lineBreak + 1
                searched = start
                return line
            }
            searched = buffer.count
            if buffer.count - start > maximumLength {
                number += 1
                throw tooLong()
            }
            if atEnd {
                guard start < buffer.count else { return nil }
                number += 1
                let line = buffer[start...]
                start = buffer.count
                searched = start
                return line
            }
            // Only the current line's bytes are kept before the next chunk is appended.
            buffer.removeSubrange(..<start)
            searched -= start
            start = 0
            let chunk = try read()
            if chunk.isEmpty { atEnd = true } else { buffer.append(contentsOf: chunk) }
        }
    }

    /// The next chunk of the input, empty at its end.
    private func read() throws(FirestoreError) -> Data {
        do {
            return try handle.read(upToCount: chunkSize) ?? Data()
        } catch {
            throw FirestoreError(code: .failedPrecondition, message: "cannot read \(name): \(error)")
        }
    }

    private func tooLong() -> FirestoreError {
        .invalidArgument(
            "\(name):\(number): the line is longer than \(maximumLength) bytes, the most import takes for one "
                + "document")
    }
}
