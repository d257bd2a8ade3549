internal import CPostgres
import FirestoreREST
import Foundation

/// One connection to a PostgreSQL server (the system `libpq`), for a ``PostgresMirror`` and the tests that read what
/// it wrote. Not thread-safe and not `Sendable`: every call blocks on the network, so a mirror uses its connection only
/// from the jobs of its own executor (`BlockingExecutor`), one at a time, never on a Swift concurrency thread.
///
/// Statements are sent with `PQexecParams`: the data is always a parameter (text, or binary for `bytea`), never
/// written into the SQL. Every failure is a `FirestoreError` naming the server (its URL without the password), what
/// was being done, and the server's message with its SQLSTATE: a lost connection (class 08) is `.unavailable`, a
/// serialization failure or deadlock (40001, 40P01) `.aborted`, bad credentials (class 28) `.permissionDenied`, a full
/// disk or too many connections (class 53) `.resourceExhausted`, data PostgreSQL cannot hold (class 22: a string with
/// U+0000 in `jsonb`) `.invalidArgument`, a constraint or trigger that refused a row (classes
/// 23, P0) `.failedPrecondition`, anything else `.internal`.
package final class PostgresConnection {
    /// A statement parameter: text (or SQL `NULL`), or bytes sent in binary (for a `bytea`).
    package enum Parameter {
        case text(String?)
        case bytes([UInt8]?)
    }

    /// The server's URL (or key-value connection string) with the password replaced by `***`: what errors name.
    package let place: String
    /// The libpq connection (`PGconn *`).
    let handle: OpaquePointer
    /// Round trips to the server since the connection opened (each statement sent).
    package internal(set) var roundTrips = 0

    /// Connects to `url` (a `postgresql://` URL or a libpq key-value connection string) and silences the server's
    /// notices. Unless `url` says otherwise, a connection attempt gives up after 10 s (`connect_timeout`), and TCP
    /// keepalives find a vanished server within about a minute (`keepalives_idle=30`, `keepalives_interval=10`,
    /// `keepalives_count=3`; not used on a Unix socket).
    /// - Throws: `FirestoreError` naming the server (password redacted) and libpq's message: `.unavailable` when the
    ///   server cannot be reached, `.permissionDenied` when it refuses the credentials, `.invalidArgument` for a URL
    ///   libpq cannot parse.
    package init(url: String) throws(FirestoreError) {
        place = Self.redact(url)
        var errorText: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(url, &errorText) else {
            let message = errorText.map { String(cString: $0) } ?? "cannot parse"
            PQfreemem(errorText)
            throw .invalidArgument("PostgreSQL \(place): not a connection URL: \(Self.trimmed(message))")
        }
        PQconninfoFree(options)
        // Defaults the URL overrides (a later setting wins): a connection attempt ends after 10 s, and a TCP
        // connection whose peer vanished is found dead within about a minute instead of blocking a statement forever.
        let settings = [
            ("connect_timeout", "10"), ("keepalives", "1"), ("keepalives_idle", "30"), ("keepalives_interval", "10"),
            ("keepalives_count", "3"), ("dbname", url),
        ]
        let keywords = settings.map { strdup($0.0) }
        let values = settings.map { strdup($0.1) }
        defer { for pointer in keywords + values { free(pointer) } }
        let connected = (keywords.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { keys in
            (values.map { UnsafePointer($0) } + [nil]).withUnsafeBufferPointer { values in
                PQconnectdbParams(keys.baseAddress, values.baseAddress, 1)
            }
        }
        guard let handle = connected else {
            throw FirestoreError(code: .resourceExhausted, message: "PostgreSQL \(place): libpq is out of memory")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.trimmed(String(cString: PQerrorMessage(handle)))
            PQfinish(handle)
            let refused = message.contains("authentication failed") || message.contains("password")
            throw FirestoreError(
                code: refused ? .permissionDenied : .unavailable,
                message: "PostgreSQL \(place): cannot connect: \(message)")
        }
        self.handle = handle
        cpostgres_silence_notices(handle)
    }

    deinit { PQfinish(handle) }

    /// Whether the connection is up; when it is not, tries once to connect again (`PQreset`).
    /// - Returns: whether it is up afterwards.
    package func reconnectIfNeeded() -> Bool {
        guard PQstatus(handle) != CONNECTION_OK else { return true }
        PQreset(handle)
        guard PQstatus(handle) == CONNECTION_OK else { return false }
        cpostgres_silence_notices(handle)
        return true
    }

    /// Runs `sql` with `parameters` (`$1`, `$2`, …) and returns its rows as text (`bytea` as `\x` hex).
    /// - Throws: `FirestoreError` naming the server, `doing`, and the server's message and SQLSTATE.
    @discardableResult
    package func query(
        _ sql: String, _ parameters: [Parameter] = [], doing: @autoclosure () -> String
    ) throws(FirestoreError) -> PostgresRows {
        roundTrips += 1
        var owned: [UnsafeMutablePointer<CChar>?] = []
        defer { for pointer in owned { free(pointer) } }
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for parameter in parameters {
            switch parameter {
            case .text(let text):
                owned.append(text.flatMap { strdup($0) })
                lengths.append(0)
                formats.append(0)
            case .bytes(let bytes):
                if let bytes {
                    let pointer = malloc(max(bytes.count, 1))!.assumingMemoryBound(to: CChar.self)
                    bytes.withUnsafeBufferPointer { buffer in
                        if let base = buffer.baseAddress {
                            UnsafeMutableRawPointer(pointer).copyMemory(from: base, byteCount: buffer.count)
                        }
                    }
                    owned.append(pointer)
                } else {
                    owned.append(nil)
                }
                lengths.append(Int32(clamping: bytes?.count ?? 0))
                formats.append(1)
            }
        }
        let values = owned.map { UnsafePointer($0) }
        let result = PQexecParams(handle, sql, Int32(parameters.count), nil, values, lengths, formats, 0)
        guard let result else {
            throw FirestoreError(
                code: .unavailable,
                message: "PostgreSQL \(place): \(doing()): \(Self.trimmed(String(cString: PQerrorMessage(handle))))")
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK:
            return PostgresRows(result)
        default:
            let error = Self.error(result, connection: handle, place: place, doing: doing())
            PQclear(result)
            throw error
        }
    }

    /// Runs `sql`, one or more statements without parameters (`BEGIN`, `COMMIT`, a schema), ignoring their rows.
    package func execute(_ sql: String, doing: @autoclosure () -> String) throws(FirestoreError) {
        roundTrips += 1
        guard let result = PQexec(handle, sql) else {
            throw FirestoreError(
                code: .unavailable,
                message: "PostgreSQL \(place): \(doing()): \(Self.trimmed(String(cString: PQerrorMessage(handle))))")
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY: return
        default: throw Self.error(result, connection: handle, place: place, doing: doing())
        }
    }

    /// Runs `body` in one transaction (`BEGIN` … `COMMIT`), rolling back when it throws.
    package func transaction<T>(
        doing: @autoclosure () -> String, _ body: () throws(FirestoreError) -> T
    ) throws(FirestoreError) -> T {
        try execute("BEGIN", doing: "\(doing()): BEGIN")
        do {
            let value = try body()
            try execute("COMMIT", doing: "\(doing()): COMMIT")
            return value
        } catch {
            rollback()
            throw error
        }
    }

    /// Rolls back the transaction under way, if any (a failure to do so leaves the connection to be reset).
    package func rollback() {
        if let result = PQexec(handle, "ROLLBACK") { PQclear(result) }
    }

    /// The error of a failed `result`: its SQLSTATE's code, the server's message, detail and hint.
    static func error(
        _ result: OpaquePointer, connection: OpaquePointer, place: String, doing: String
    ) -> FirestoreError {
        func field(_ code: Character) -> String? {
            guard let ascii = code.asciiValue, let text = PQresultErrorField(result, Int32(ascii)) else { return nil }
            return String(cString: text)
        }
        let state = field("C") ?? ""
        var message = field("M") ?? trimmed(String(cString: PQresultErrorMessage(result)))
        if message.isEmpty { message = trimmed(String(cString: PQerrorMessage(connection))) }
        if let detail = field("D") { message += " (\(detail))" }
        let code: FirestoreError.Code
        switch state.prefix(2) {
        case "08": code = .unavailable
        case "28": code = .permissionDenied
        case "53": code = .resourceExhausted
        case "22": code = .invalidArgument
        case "23", "P0": code = .failedPrecondition
        case "40": code = .aborted
        case "": code = PQstatus(connection) == CONNECTION_OK ? .internal : .unavailable
        default: code = .internal
        }
        let sqlState = state.isEmpty ? "" : " (SQLSTATE \(state))"
        return FirestoreError(code: code, message: "PostgreSQL \(place): \(doing): \(message)\(sqlState)")
    }

    static func trimmed(_ text: String) -> String {
        String(text.reversed().drop { $0.isWhitespace }.reversed())
    }

    /// `url` with its password replaced by `***`: the `user:password@` of a `postgresql://` URL, and the value of a
    /// `password` parameter (in the URL's query, or a key-value connection string).
    package static func redact(_ url: String) -> String {
        var text = url
        if let scheme = text.firstRange(of: "://") {
            let rest = text[scheme.upperBound...]
            let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
            if let at = rest[..<authorityEnd].lastIndex(of: "@"),
                let colon = rest[..<at].firstIndex(of: ":")
            {
                text.replaceSubrange(text.index(after: colon)..<at, with: "***")
            }
        }
        // `password=...` up to the next `&`, space or end (a quoted key-value value up to its closing quote).
        var output = ""
        var index = text.startIndex
        while let found = text[index...].range(of: "password", options: .caseInsensitive) {
            var cursor = found.upperBound
            while cursor < text.endIndex, text[cursor] == " " { cursor = text.index(after: cursor) }
            guard cursor < text.endIndex, text[cursor] == "=" else {
                output += text[index..<found.upperBound]
                index = found.upperBound
                continue
            }
            cursor = text.index(after: cursor)
            while cursor < text.endIndex, text[cursor] == " " { cursor = text.index(after: cursor) }
            output += text[index..<cursor] + "***"
            if cursor < text.endIndex, text[cursor] == "'" {
                cursor = text.index(after: cursor)
                while cursor < text.endIndex, text[cursor] != "'" {
                    if text[cursor] == "\\" { cursor = text.index(after: cursor) }
                    if cursor < text.endIndex { cursor = text.index(after: cursor) }
                }
                if cursor < text.endIndex { cursor = text.index(after: cursor) }
            } else {
                while cursor < text.endIndex, text[cursor] != "&", text[cursor] != " " {
                    cursor = text.index(after: cursor)
                }
            }
            index = cursor
        }
        return output + text[index...]
    }
}

/// The rows of one statement's result, as text (owned; freed with the value).
package final class PostgresRows {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) { self.result = result }

    deinit { PQclear(result) }

    /// How many rows.
    package var count: Int { Int(PQntuples(result)) }

    /// How many rows the command changed (`INSERT`, `UPDATE`, `DELETE`), 0 when it says none.
    package var changed: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The text of `column` in `row`, or `nil` for SQL `NULL`.
    package func text(_ row: Int, _ column: Int) -> String? {
        guard PQgetisnull(result, Int32(row), Int32(column)) == 0 else { return nil }
        return String(cString: PQgetvalue(result, Int32(row), Int32(column)))
    }

    /// The bytes of a `bytea` `column` in `row` (sent as `\x` hex text), or `nil` for SQL `NULL` or other text.
    package func bytes(_ row: Int, _ column: Int) -> [UInt8]? {
        guard let text = text(row, column), text.hasPrefix("\\x") else { return nil }
        let digits = Array(text.utf8.dropFirst(2))
        guard digits.count % 2 == 0 else { return nil }
        func value(_ digit: UInt8) -> UInt8? {
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// Every row's columns as text: `rows[row][column]`.
    package var all: [[String?]] {
        let columns = Int(PQnfields(result))
        return (0..<count).map { row in (0..<columns).map { text(row, $0) } }
    }
}
