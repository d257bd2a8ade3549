import FirestoreREST
import Foundation

/// A cassette file that grows by one interaction at a time in bounded work: the new interaction and the closing
/// after it are written over the old closing, so the file is always byte for byte what ``Cassette/jsonData()`` of
/// the whole cassette gives, and each interaction costs about twice its own size in bytes written, however long
/// the recording (issue 19: rewriting the whole file after every request made a 90 s recording take 68 s of CPU).
///
/// A kill can stop the process in the middle of the write over the closing (a write of more than one page is not
/// atomic); so the same bytes go first to a journal beside the file (``CassetteJournal``, `PATH-journal`), removed
/// once the file holds them. ``Cassette/init(contentsOfFile:)`` reads a file cut short that way with the journal,
/// and a file whose journal was cut short as it is: every kill leaves a cassette that loads, with every
/// interaction whose write had finished.
///
/// The first interaction, and every change of what is before the interactions (a new secret to scrub in
/// interactions already written), rewrite the whole file atomically (a temporary file renamed into place).
package struct CassetteFile: Sendable {
    /// The cassette file.
    package let path: String
    /// Bytes written so far, to the file and its journal, for tests that check the cost stays linear.
    package private(set) var bytesWritten = 0
    /// The bytes after the last interaction (`\n  ],\n  "version": 1\n}\n`), or `nil` while the file has no
    /// interaction to append after.
    private var closing: Data?
    /// Where ``closing`` starts in the file.
    private var closingOffset = 0

    /// A writer for `path`; nothing is written until ``rewrite(_:)`` or ``append(_:rewriting:)``.
    package init(path: String) {
        self.path = path
    }

    /// Writes `cassette` whole, atomically, and remembers where its closing starts.
    /// - Throws: `FirestoreError` `.unavailable` naming the path when it cannot be written.
    package mutating func rewrite(_ cassette: Cassette) throws(FirestoreError) {
        let data = cassette.jsonData()
        try cassette.write(toFile: path)
        bytesWritten += data.count
        try? FileManager.default.removeItem(atPath: CassetteJournal.path(for: path))
        closing = nil
        guard !cassette.interactions.isEmpty, let tail = Self.closing(of: cassette), data.count >= tail.count,
            data.suffix(tail.count) == tail
        else { return }
        closing = tail
        closingOffset = data.count - tail.count
    }

    /// Appends `interaction` after the file's last one; when the file has none yet (or was never written by this
    /// writer), writes `cassette()` whole instead, which must already hold `interaction` last.
    /// - Throws: `FirestoreError` `.unavailable` naming the file when it cannot be written.
    package mutating func append(_ interaction: Cassette.Interaction, rewriting cassette: () -> Cassette)
        throws(FirestoreError)
    {
        guard let closing else {
            try rewrite(cassette())
            return
        }
        var chunk = Data(",\n    ".utf8)
        chunk.append(interaction.json.serialized(prettyAtIndent: 2))
        chunk.append(closing)
        let journal = CassetteJournal.path(for: path)
        try CassetteJournal.write(chunk, at: closingOffset, to: journal)
        try Self.write(chunk, at: closingOffset, toFile: path)
        bytesWritten += chunk.count * 2
        _ = unlink(journal)
        closingOffset += chunk.count - closing.count
    }

    /// What ``Cassette/jsonData()`` of `cassette` writes after its last interaction: the same document with one
    /// marker string in place of the interactions, cut after the marker.
    static func closing(of cassette: Cassette) -> Data? {
        var empty = cassette
        empty.interactions = []
        guard case .object(var members) = empty.json else { return nil }
        let marker = "cassette-closing-\(UUID().uuidString)"
        members["interactions"] = .array([.string(marker)])
        var data = JSONValue.object(members).serialized(pretty: true)
        data.append(0x0A)
        guard let range = data.range(of: Data("\"\(marker)\"".utf8)) else { return nil }
        return data.subdata(in: range.upperBound..<data.endIndex)
    }

    /// Writes `bytes` into the existing file at `offset` (`pwrite`, repeated until all are written). A symbolic link
    /// put in the file's place since it was written is not followed (`O_NOFOLLOW`): the write fails instead.
    static func write(_ bytes: Data, at offset: Int, toFile path: String) throws(FirestoreError) {
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw failure(path, errno) }
        defer { close(descriptor) }
        let result = SideFile.write([UInt8](bytes), at: offset, to: descriptor)
        guard result == 0 else { throw failure(path, result) }
    }

    static func failure(_ path: String, _ code: Int32) -> FirestoreError {
        FirestoreError(
            code: .unavailable, message: "cannot write the cassette \(path): \(String(cString: strerror(code)))")
    }
}
