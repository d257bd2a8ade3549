import FirestoreREST

/// How the mirrors store a time (``SQLiteMirror``, and `PostgresMirror` in FirestorePostgres): RFC 3339 text in UTC
/// with exactly 9 fraction digits (`2026-12-06T05:01:02.123456789Z`), which sorts and compares as the times do and
/// keeps Firestore's nanoseconds (the version guard orders two versions within a microsecond).
package enum MirrorTimeText {
    /// `time` as stored.
    package static func text(_ time: Timestamp) -> String {
        var text = time.rfc3339
        text.removeLast()  // "Z"
        if let dot = text.firstIndex(of: ".") {
            let digits = text.distance(from: dot, to: text.endIndex) - 1
            text += String(repeating: "0", count: 9 - digits)
        } else {
            text += ".000000000"
        }
        return text + "Z"
    }

    /// The time stored as `text`.
    /// - Throws: `FirestoreError` `.dataLoss` naming `what` when it is not an RFC 3339 time.
    package static func time(_ text: String, what: @autoclosure () -> String) throws(FirestoreError) -> Timestamp {
        do {
            return try Timestamp(rfc3339: text)
        } catch {
            throw FirestoreError(code: .dataLoss, message: "\(what()): not a time: \(error.message)")
        }
    }
}
