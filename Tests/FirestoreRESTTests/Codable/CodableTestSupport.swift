import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

// Helpers for the Codable tests. Expected values are always written out in the tests; these only run the
// encoder and decoder and compare.

/// A client for project `p` that never sends anything (references and snapshots need one).
func offlineFirestore() throws -> Firestore {
    try ScriptedTransport { _, _ in HTTPResponse(status: 500, body: Data()) }.firestore()
}

/// The full resource name of `path` in project `p`.
func resourceName(_ path: String) -> String {
    "projects/p/databases/(default)/documents/" + path
}

/// The SDK tests' "round-trips to D": encoding `model` gives exactly `expected`, and decoding `expected` gives
/// `model` back.
func expectRoundTrip<T: Codable & Equatable>(
    _ model: T, _ expected: [String: FirestoreValue], in reference: DocumentReference? = nil,
    encoder: FirestoreEncoder = FirestoreEncoder(), decoder: FirestoreDecoder = FirestoreDecoder(),
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(try encoder.encode(model) == expected, sourceLocation: sourceLocation)
    #expect(try decoder.decode(T.self, from: expected, in: reference) == model, sourceLocation: sourceLocation)
}

/// The `debugDescription` of a `DecodingError` (or `EncodingError`), for asserting messages.
func codingMessage(_ error: any Error) -> String {
    switch error {
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
        DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
        return context.debugDescription
    case EncodingError.invalidValue(_, let context):
        return context.debugDescription
    default:
        return "not a coding error: \(error)"
    }
}

/// The coding path of a `DecodingError` or `EncodingError`, as string values.
func codingPath(_ error: any Error) -> [String] {
    switch error {
    case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context),
        DecodingError.keyNotFound(_, let context), DecodingError.dataCorrupted(let context):
        return context.codingPath.map(\.stringValue)
    case EncodingError.invalidValue(_, let context):
        return context.codingPath.map(\.stringValue)
    default:
        return []
    }
}

/// The error `body` throws, or a recorded issue when it throws none.
func thrownError<R>(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> R) -> (any Error)? {
    do {
        _ = try body()
        Issue.record("expected an error", sourceLocation: sourceLocation)
        return nil
    } catch {
        return error
    }
}
