import FirestoreREST
import Foundation

/// `firestore-feed import COLLECTION_PATH FILE`: writes one document per JSON line of FILE (``ImportLine``), in
/// commits of up to 500 writes.
package struct ImportCommand: ParsableCommand {
    package static let spec = CommandSpec(
        name: "import",
        usage: ["COLLECTION_PATH FILE [options]"],
        summary: "write one document per JSON line of FILE",
        abstract: """
            Writes one document per line of FILE (JSON lines; - reads standard input) into the
            collection, replacing documents that exist. Each line is an object with "id" (the
            document ID; without it an automatic one) and either "data" (plain JSON values, as
            set takes them) or "fields" (Firestore REST values, {"integerValue":"52"}, which
            keep every type); "path", "createTime" and "updateTime" are ignored, so what export
            prints imports as it is. A line may hold at most 32 MiB (33554432 bytes): Firestore
            stores at most 1 MiB of a document, whose JSON line is at most about 23 MiB; a longer
            line is read no further. Every line is checked before anything is written: a bad
            line is an error naming FILE:LINE (exit 1) and writes nothing. The writes go in
            commits of up to 500 (each one atomic); a failed commit ends the command with exit 1,
            saying which lines were written. Prints {"collection","commits","documents"}.
            """,
        options: WriteConnection.options)

    /// Writes per commit: Firestore's limit (REST reference: `projects.databases.documents.commit`).
    static let batchSize = 500

    /// The most bytes a line of FILE may have: 32 MiB. Firestore stores at most 1 MiB (1,048,576 bytes) of a
    /// document (Firestore docs, "Usage and limits"; "Storage size calculations"), and a line is one document's
    /// JSON, which can be much longer than its stored size: in the `fields` form `export` prints, each `false` of
    /// an array counts 1 byte stored but is 23 bytes of JSON (`{"booleanValue":false},`), the most of any value
    /// but an empty array or map (which count nothing), so the line of the largest such document is at most
    /// about 23 MiB. The limit leaves room above that, so what `export` prints imports, and still stops a runaway
    /// line (a file without line breaks, a 300 MB value) after 32 MiB read instead of reading it whole: parsing
    /// a line takes several times its size in memory.
    package static let maximumLineLength = 32 * 1024 * 1024

    let collectionPath: String
    /// FILE, `-` for standard input.
    let file: String
    let client: WriteConnection

    package init(parsing reader: ArgumentReader) throws(ValidationError) {
        guard reader.positionals.count == 2 else {
            throw ValidationError("import needs COLLECTION_PATH and FILE (JSON lines; - for standard input)")
        }
        (collectionPath, file) = (reader.positionals[0], reader.positionals[1])
        try PathArgument.check(collectionPath, collection: true)
        client = try WriteConnection(parsing: reader)
    }

    package func validate() throws(ValidationError) {
        try client.validate()
    }

    package func run() async throws(CLIError) {
        let firestore = try await client.makeClient()
        let collection = firestore.collection(collectionPath)
        let name = file == "-" ? "standard input" : file
        let parsed = try await CLIError.runtimeErrors {
            try await InputFile.withLines(of: file, name: name, maximumLineLength: Self.maximumLineLength) {
                (lines) throws(FirestoreError) in try Self.writes(from: &lines, into: collection)
            }
        }
        let commits = try await Self.commit(parsed.writes, lines: parsed.lines, from: name, on: firestore)
        let summary: JSONValue = [
            "collection": .string(collectionPath), "documents": .integer(Int64(parsed.writes.count)),
            "commits": .integer(Int64(commits)),
        ]
        await Console.output(summary.serializedString())
    }

    /// Commits `writes` (from `lines` of `name`) in batches of ``batchSize``, in order; returns the commits made.
    /// - Throws: ``CLIError/runtime(_:)`` at the first failed commit, saying which lines were written and which
    ///   were not.
    private static func commit(
        _ writes: [Write], lines: [Int], from name: String, on firestore: Firestore
    ) async throws(CLIError) -> Int {
        var written = 0
        var commits = 0
        let progress = ProgressMeter("import", total: writes.count)
        defer { progress.finish() }
        while written < writes.count {
            let end = min(written + batchSize, writes.count)
            do {
                try await firestore.commit(Array(writes[written..<end]))
            } catch {
                let failure = FirestoreError(wrapping: error)
                let before =
                    written == 0
                    ? "nothing was written" : "lines \(lines[0])-\(lines[written - 1]) were written before"
                throw .runtime(
                    FirestoreError(
                        code: failure.code,
                        message: "\(name) lines \(lines[written])-\(lines[end - 1]) (commit \(commits + 1)) were not "
                            + "written, nor the lines after them: \(failure.message) (\(before))",
                        httpStatus: failure.httpStatus))
            }
            progress.advance(by: end - written)
            written = end
            commits += 1
        }
        return commits
    }

    /// One set write per non-blank line of `input`, and each write's line number (from 1).
    /// - Throws: ``FirestoreError`` `.invalidArgument` as `NAME:LINE: problem` for a line that is not valid
    ///   UTF-8, not an ``ImportLine``, longer than `input`'s maximum, or data Firestore refuses (a reserved field
    ///   name, an array in an array, an ID with a NUL); `.failedPrecondition` when `input` cannot be read.
    package static func writes(from input: inout InputLines, into collection: CollectionReference)
        throws(FirestoreError) -> (writes: [Write], lines: [Int])
    {
        let name = input.name
        let batch = collection.firestore.batch()
        var lines: [Int] = []
        while let bytes = try input.next() {
            let number = input.number
            guard var text = String(validating: bytes, as: UTF8.self) else {
                throw .invalidArgument("\(name):\(number): not valid UTF-8")
            }
            if text.hasSuffix("\r") { text.removeLast() }
            if text.allSatisfy(\.isWhitespace) { continue }
            do {
                let line = try ImportLine(parsing: text)
                let reference = line.id.map(collection.document) ?? collection.document()
                try batch.setData([String: FieldValue](line.fields), forDocument: reference)
            } catch {
                throw .invalidArgument("\(name):\(number): \(error.message)")
            }
            lines.append(number)
        }
        return (batch.writes, lines)
    }
}
