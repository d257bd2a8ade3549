import Foundation
import Testing

@testable import FirestoreREST

// Small helpers shared by the FirestoreRESTTests files. Expected values in the tests are always written out;
// these helpers only turn written-out literals into the library's types.

/// Parses a JSON literal written in a test (the expected or the input side).
func json(_ text: String) throws -> JSONValue {
    try JSONValue.parse(text)
}

/// A timestamp from written-out seconds and nanos, without the range check (so tables can be static).
func ts(_ seconds: Int64, _ nanos: Int32 = 0) -> Timestamp {
    Timestamp(uncheckedSeconds: seconds, nanos: nanos)
}

/// Decodes a REST `Value` object given as JSON text.
func decodeValue(_ text: String) throws -> FirestoreValue {
    try FirestoreValue(restJSON: json(text))
}

/// A field path from written-out segments.
func fieldPath(_ segments: String...) throws -> FieldPath {
    try FieldPath(segments)
}
