import FirestoreREST

/// SQLite's own checks of a checkpoint store's file, run when a store is opened, after its application ID and schema
/// version (``CheckpointFile``). Any failure is `FirestoreError` `.dataLoss` naming the file: the file is
/// refused, never read.
///
/// - The text encoding is UTF-8 (`PRAGMA encoding`): a flipped header byte that made SQLite read every text column as
///   UTF-16 would make no key match.
/// - The schema is exactly this version's (``CheckpointSchema/schemaRows``): a flipped bit in a column name or type
///   would otherwise surface as an SQL error, or a different table.
/// - `PRAGMA integrity_check`: every page and b-tree well-formed (what `quick_check` checks) and, which
///   `quick_check` skips, every index entry matching its table row and every `UNIQUE` constraint held
///   (https://www.sqlite.org/pragma.html#pragma_integrity_check). The only index is the one on the key of `feeds`:
///   one flipped bit in it once made the key's row invisible, and the store was read as holding no checkpoint
///   (issue 24). The cost is that of `quick_check`, O(file size): about 12 ms for a 12 MB store of 30,000
///   documents.
enum CheckpointIntegrity {
    static func check(_ connection: SQLiteConnection) throws(FirestoreError) {
        let path = connection.path
        func damaged(_ what: String) -> FirestoreError {
            FirestoreError(
                code: .dataLoss,
                message: "checkpoint store \(path): the file is damaged (truncated or corrupted): \(what)")
        }
        do throws(FirestoreError) {
            let encoding = try connection.text("PRAGMA encoding", doing: "reading the text encoding") ?? "none"
            guard encoding == "UTF-8" else { throw damaged("text encoding \(encoding), not UTF-8") }
            let schema = try connection.rows(
                "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY rowid", doing: "reading the schema")
            guard schema.map({ $0.joined(separator: "\t") }) == CheckpointSchema.schemaRows else {
                throw damaged("its schema is not that of a checkpoint store of version \(CheckpointSchema.version)")
            }
            let check = try connection.text("PRAGMA integrity_check(1)", doing: "checking the file") ?? "no answer"
            guard check == "ok" else { throw damaged(check) }
        } catch {
            // SQLite could not even run the checks (a flipped schema format number: "unsupported file format").
            guard error.code == .internal else { throw error }
            throw damaged(error.message.replacing("checkpoint store \(path): ", with: ""))
        }
    }
}
