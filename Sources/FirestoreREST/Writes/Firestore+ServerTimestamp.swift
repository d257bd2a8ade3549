import FirestoreWire

extension Firestore {
    /// A client like this one (same database, credentials, transport and retries) that sets `field` to the server
    /// time in every write it makes: `setData`, `updateData`, `create`, a ``WriteBatch``, a transaction's writes and
    /// any hand-built ``Write`` (deletes excepted). Each update write gets the transform `REQUEST_TIME` on `field`
    /// (`FieldValue.serverTimestamp()`, REST reference: `Write.update_transforms`), which replaces any value the
    /// write gives the field itself. This is what delta polling (`PollMode.delta(field:margin:reconcileInterval:)`)
    /// needs from every writer of the collection.
    ///
    /// ```swift
    /// let db = try Firestore.emulator(host: host, projectID: "demo").settingServerTimestamp(on: "updatedAt")
    /// try await db.document("fruits/fig").setData(["name": "Fig"])   // also sets updatedAt to the server time
    /// ```
    ///
    /// The time written is when the server received the commit, which precedes the commit time (the document's
    /// `updateTime`) by tens of milliseconds (`DeltaPollingLiveTests.serverTimePrecedesTheCommit`).
    /// - Parameter field: the field's path in the form of ``FieldPath/description`` (`updatedAt`,
    ///   `meta.updatedAt`, a segment with dots in backticks).
    /// - Returns: a new client; this one is unchanged. Writes that transform a field above or below `field` then
    ///   fail with `.invalidArgument` before anything is sent.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for an invalid path or `__name__`.
    public func settingServerTimestamp(on field: String) throws(FirestoreError) -> Firestore {
        let path = try FieldPath(quoted: field)
        guard !path.isDocumentID else {
            throw .invalidArgument("__name__ is the document's name, not a field that can hold the server time")
        }
        return Firestore(self, serverTimestampField: path)
    }

    /// `writes` with ``serverTimestampField`` set in each, as the commit sends them.
    /// - Throws: as ``Write/settingServerTime(on:)``.
    func stampingServerTime(_ writes: [Write]) throws(FirestoreError) -> [Write] {
        guard let field = serverTimestampField else { return writes }
        var stamped: [Write] = []
        stamped.reserveCapacity(writes.count)
        for write in writes { stamped.append(try write.settingServerTime(on: field)) }
        return stamped
    }
}
