import Foundation

// fuzz-modules: FirestoreWire FirestoreREST FirestoreFeed FirestoreTesting
// fuzz-seeds: files
@testable import FirestoreREST
@testable import FirestoreTesting

// Fuzz target CassetteLoader: bytes of a cassette file -> `Cassette(jsonData:source:)`.
//
// Checks, besides "no crash, no leak, no hang":
// - a cassette that loads writes (`jsonData()`) bytes that load back to the same cassette, and writing
//   those again gives the same bytes (the file format is a fixed point).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCassetteLoader(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let cassette = try? Cassette(jsonData: fuzzBytes(data, size), source: "fuzz") else { return 0 }
    let written = cassette.jsonData()
    let again = try? Cassette(jsonData: written, source: "rewritten")
    fuzzCheck(again == cassette, "a loaded cassette does not load back after writing")
    fuzzCheck(again?.jsonData() == written, "the cassette file format is not a fixed point")
    return 0
}
