internal import CPostgres
import FirestoreREST

extension PostgresConnection {
    /// Runs `sql`, a `COPY … FROM STDIN` statement, sending the chunks of `data` as its input (in the format the
    /// statement names; each chunk is taken when the previous one is sent, so that the server works on one while the
    /// next is made), and returns how many rows it copied. One round trip (counted once).
    /// - Returns: the rows copied, or `nil` when a unique constraint refused a row (SQLSTATE 23505: nothing copied,
    ///   the transaction under way, if any, is aborted).
    /// - Throws: `FirestoreError` naming the server, `doing`, and the server's message and SQLSTATE (as
    ///   ``query(_:_:doing:)``); nothing is copied then.
    package func copyIn(
        _ sql: String, _ data: some Sequence<[UInt8]>, doing: @autoclosure () -> String
    ) throws(FirestoreError) -> Int? {
        roundTrips += 1
        func lost() -> FirestoreError {
            FirestoreError(
                code: .unavailable,
                message: "PostgreSQL \(place): \(doing()): \(Self.trimmed(String(cString: PQerrorMessage(handle))))")
        }
        guard let started = PQexec(handle, sql) else { throw lost() }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            let error = Self.error(started, connection: handle, place: place, doing: doing())
            PQclear(started)
            throw error
        }
        PQclear(started)
        // libpq sends what it holds once it passes 8 KiB; a failure the server reports while the rows go comes as the
        // final result, after the end of the input.
        var sent = true
        for chunk in data where !chunk.isEmpty {
            let status = chunk.withUnsafeBufferPointer { buffer in
                buffer.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32(buffer.count)) }
            }
            guard status == 1 else {
                sent = false
                break
            }
        }
        let ended = sent ? PQputCopyEnd(handle, nil) : PQputCopyEnd(handle, "the client could not send its rows")
        var failure: FirestoreError? = ended == 1 ? nil : lost()
        var copied = 0
        var duplicate = false
        // Every result up to the end (the COPY's own, then none).
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            if status == PGRES_COPY_IN {
                // The input is still open: the end did not go through, so the connection is unusable.
                PQclear(result)
                throw failure ?? lost()
            }
            if status == PGRES_COMMAND_OK {
                copied = Int(String(cString: PQcmdTuples(result))) ?? 0
            } else if failure == nil, let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))),
                String(cString: state) == "23505"
            {
                duplicate = true
            } else if failure == nil {
                failure = Self.error(result, connection: handle, place: place, doing: doing())
            }
            PQclear(result)
        }
        if let failure { throw failure }
        if !sent { throw lost() }
        return duplicate ? nil : copied
    }
}
