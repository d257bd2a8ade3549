import FirestoreFeed
import FirestoreREST

/// The input of a ``PostgresMirror`` load page's `COPY "T" (name, fields, create_time, update_time, read_time) FROM
/// STDIN (FORMAT binary)`: PostgreSQL's binary copy format (the `PGCOPY` signature, then per row the field count and
/// each field's big-endian length and bytes, `-1` for `NULL`, then `-1`), the row of each document as the guarded
/// path writes it: `text` fields as their UTF-8 bytes (nothing to escape), `fields` as `jsonb`'s binary form (version
/// 1, then the REST `Value` JSON text of ``FirestoreValue/writeRESTFields(_:to:)``), the times as ``MirrorTimeText``.
///
/// The input comes in chunks of about ``chunkSize`` bytes, each encoded when the `COPY` asks for it, so that the server
/// parses one chunk while the next is encoded.
struct PostgresMirrorCopyData: Sequence, IteratorProtocol {
    /// About how many bytes a chunk holds (it ends after the row that reaches it).
    static let chunkSize = 1 << 16

    private let documents: [Document]
    private let readText: [UInt8]
    private var position = 0
    private var ended = false

    /// The copy input of `documents` (each with an `updateTime`) applied at `readTime`.
    init(_ documents: [Document], readTime: Timestamp) {
        self.documents = documents
        var readText: [UInt8] = []
        MirrorTimeText.write(readTime, to: &readText)
        self.readText = readText
    }

    /// The next chunk: the header before the first row, the rows, the end after the last; `nil` after it.
    mutating func next() -> [UInt8]? {
        guard !ended else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(Self.chunkSize + 4096)
        if position == 0 {
            output.append(contentsOf: Array("PGCOPY\n".utf8) + [0xFF, 0x0D, 0x0A, 0x00])
            Self.appendInt32(0, to: &output)  // flags
            Self.appendInt32(0, to: &output)  // header extension length
        }
        while position < documents.count, output.count < Self.chunkSize {
            Self.row(documents[position], readText: readText, to: &output)
            position += 1
        }
        if position == documents.count {
            output.append(contentsOf: [0xFF, 0xFF])  // the end: a field count of -1
            ended = true
        }
        return output
    }

    /// Appends the row of `document`.
    private static func row(_ document: Document, readText: [UInt8], to output: inout [UInt8]) {
        output.append(contentsOf: [0x00, 0x05])  // five fields
        field(to: &output) { $0.append(contentsOf: document.name.utf8) }
        field(to: &output) {
            $0.append(1)  // jsonb's binary form: version 1, then the JSON text
            FirestoreValue.writeRESTFields(document.fields, to: &$0)
        }
        if let createTime = document.createTime {
            field(to: &output) { MirrorTimeText.write(createTime, to: &$0) }
        } else {
            appendInt32(-1, to: &output)
        }
        if let updateTime = document.updateTime {
            field(to: &output) { MirrorTimeText.write(updateTime, to: &$0) }
        } else {
            appendInt32(-1, to: &output)
        }
        field(to: &output) { $0.append(contentsOf: readText) }
    }

    /// Appends one field: its length (filled in after `body` wrote it), then what `body` appends.
    private static func field(to output: inout [UInt8], _ body: (inout [UInt8]) -> Void) {
        let start = output.count
        appendInt32(0, to: &output)
        body(&output)
        let length = UInt32(truncatingIfNeeded: output.count - start - 4)
        output[start] = UInt8(truncatingIfNeeded: length >> 24)
        output[start + 1] = UInt8(truncatingIfNeeded: length >> 16)
        output[start + 2] = UInt8(truncatingIfNeeded: length >> 8)
        output[start + 3] = UInt8(truncatingIfNeeded: length)
    }

    private static func appendInt32(_ value: Int32, to output: inout [UInt8]) {
        let bits = UInt32(bitPattern: value)
        output.append(UInt8(truncatingIfNeeded: bits >> 24))
        output.append(UInt8(truncatingIfNeeded: bits >> 16))
        output.append(UInt8(truncatingIfNeeded: bits >> 8))
        output.append(UInt8(truncatingIfNeeded: bits))
    }
}
