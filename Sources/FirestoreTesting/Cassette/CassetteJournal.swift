import FirestoreREST
import Foundation

/// The journal beside a cassette file that ``CassetteFile`` is appending to: the bytes about to be written over
/// the file's closing, and where, so that a file cut short by a kill during that write can still be read.
///
/// `PATH-journal` holds one header line, `{"format":"firestore-feed-cassette-journal","length":N,"offset":L}`, then
/// the N bytes that belong at byte L of the cassette file. It is written before the cassette file and removed after
/// it. A journal cut short itself (a kill while writing it) means the cassette file was not touched yet.
package enum CassetteJournal {
    /// The value of the header's `format` member.
    static let formatName = "firestore-feed-cassette-journal"

    /// The journal path of the cassette at `path`: `path` + `-journal`.
    package static func path(for path: String) -> String { path + "-journal" }

    /// Writes a journal of `bytes` for `offset` to `journal`, replacing any older one: whatever is at the name (an
    /// older journal, or a link someone planted at this predictable name) is removed, never written through, and the
    /// journal is created new (`SideFile.createNew(_:mode:)`: `O_EXCL | O_NOFOLLOW`).
    /// - Throws: `FirestoreError` `.unavailable` naming the file when it cannot be written.
    static func write(_ bytes: Data, at offset: Int, to journal: String) throws(FirestoreError) {
        let header: JSONValue = [
            "format": .string(formatName), "length": .integer(Int64(bytes.count)), "offset": .integer(Int64(offset)),
        ]
        var data = [UInt8](header.serialized())
        data.append(0x0A)
        data.append(contentsOf: bytes)
        _ = unlink(journal)
        let descriptor: Int32
        do {
            descriptor = try SideFile.createNew(journal, mode: 0o644)
        } catch {
            throw FirestoreError(
                code: .unavailable, message: "cannot write the cassette journal \(journal): \(error.reason)")
        }
        defer { close(descriptor) }
        let failure = SideFile.write(data, at: 0, to: descriptor)
        guard failure == 0 else {
            throw FirestoreError(
                code: .unavailable,
                message: "cannot write the cassette journal \(journal): \(String(cString: strerror(failure)))")
        }
    }

    /// The cassette file `main` as it would be had the write that the journal at `journal` records finished: the
    /// first `offset` bytes of `main`, then the journal's bytes. `nil` when there is no journal, it is cut short,
    /// malformed, or does not fit `main`.
    static func recover(_ main: Data, journal: String) -> Data? {
        guard let data = FileManager.default.contents(atPath: journal),
            let newline = data.firstIndex(of: 0x0A),
            let header = try? JSONValue.parse(data.subdata(in: data.startIndex..<newline)),
            header["format"]?.stringValue == formatName,
            case .integer(let length)? = header["length"], case .integer(let offset)? = header["offset"],
            offset >= 0, length >= 0, offset <= Int64(main.count),
            Int64(data.endIndex - newline - 1) == length
        else { return nil }
        var recovered = main.prefix(Int(offset))
        recovered.append(data.suffix(from: newline + 1))
        return Data(recovered)
    }
}
