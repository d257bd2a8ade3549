import Foundation

// fuzz-modules: FirestoreWire FirestoreREST
// fuzz-seeds: fieldpaths
@testable import FirestoreREST

// Fuzz target QuotedFieldPath: text -> `FieldPath(quoted:)`, and segments -> `description` -> back.
//
// Checks, besides "no crash, no leak, no hang":
// - a parsed path has at least one segment and no empty segment;
// - its quoted form (`description`) parses back to the same segments and is a fixed point;
// - any list of non-empty segments (the input split at NUL bytes) quotes to text that parses back to it.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzQuotedFieldPath(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let text = fuzzText(data, size) else { return 0 }
    if let path = try? FieldPath(quoted: text) {
        fuzzCheck(!path.segments.isEmpty && !path.segments.contains(where: \.isEmpty), "\(text): empty segment")
        let quoted = path.description
        let again = try? FieldPath(quoted: quoted)
        fuzzCheck(again?.segments == path.segments, "\(text) -> \(quoted) does not parse back")
        fuzzCheck(again?.description == quoted, "\(quoted) is not a fixed point")
    }
    _ = try? FieldPath(dotted: text)
    let segments = text.split(separator: "\0", omittingEmptySubsequences: true).map(String.init)
    if let path = try? FieldPath(segments) {
        let again = try? FieldPath(quoted: path.description)
        fuzzCheck(again?.segments == segments, "\(segments) -> \(path.description) does not parse back")
    }
    return 0
}
