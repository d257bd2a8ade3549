import Foundation

// fuzz-modules: FirestoreWire FirestoreREST
// fuzz-seeds: timestamps
@testable import FirestoreREST

// Fuzz target RFC3339Timestamp: text -> `Timestamp(rfc3339:)`.
//
// Checks, besides "no crash, no leak, no hang":
// - what parses lies in 0001-01-01 ... 9999-12-31 with nanos in 0 ... 999,999,999;
// - round trip: the canonical text (`rfc3339`) parses back to the same instant and is a fixed point;
// - the canonical text of seconds/nanos taken from the input bytes (any instant in range) parses back.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRFC3339Timestamp(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if let text = fuzzText(data, size), let time = try? Timestamp(rfc3339: text) {
        fuzzCheck(time >= Timestamp.minimum && time <= Timestamp.maximum, "\(text) parsed outside the range")
        fuzzCheck((0...999_999_999).contains(time.nanos), "\(text) parsed with nanos \(time.nanos)")
        let canonical = time.rfc3339
        let again = try? Timestamp(rfc3339: canonical)
        fuzzCheck(again == time, "\(text) -> \(canonical) does not parse back to the same instant")
        fuzzCheck(again?.rfc3339 == canonical, "\(canonical) is not a fixed point")
    }
    // Any instant in range, built from the first 12 bytes, writes text that reads back.
    if size >= 12 {
        var raw: (UInt64, UInt32) = (0, 0)
        withUnsafeMutableBytes(of: &raw.0) { $0.copyMemory(from: UnsafeRawBufferPointer(start: data, count: 8)) }
        withUnsafeMutableBytes(of: &raw.1) {
            $0.copyMemory(from: UnsafeRawBufferPointer(start: data + 8, count: 4))
        }
        let span = UInt64(Timestamp.maximum.seconds - Timestamp.minimum.seconds + 1)
        let seconds = Timestamp.minimum.seconds + Int64(raw.0 % span)
        let nanos = Int32(raw.1 % 1_000_000_000)
        if let time = try? Timestamp(seconds: seconds, nanos: nanos) {
            let again = try? Timestamp(rfc3339: time.rfc3339)
            fuzzCheck(again == time, "\(seconds)s \(nanos)ns -> \(time.rfc3339) does not parse back")
        } else {
            fuzzCheck(false, "\(seconds)s \(nanos)ns refused inside the range")
        }
    }
    return 0
}
