import FirestoreREST

extension MirrorTimeText {
    /// Appends ``text(_:)`` of `time` to `output` as UTF-8, byte for byte the same, without building a `String`.
    package static func write(_ time: Timestamp, to output: inout [UInt8]) {
        time.writeRFC3339(to: &output, nineDigits: true)
    }
}
