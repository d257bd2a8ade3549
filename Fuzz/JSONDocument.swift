import Foundation

// fuzz-modules: FirestoreWire FirestoreREST
// fuzz-seeds: json
@testable import FirestoreREST

// Fuzz target JSONDocument: REST JSON text -> JSONValue (`JSONValue.parse`) -> `Document(restJSON:)` and
// `FirestoreValue(restJSON:)`, the path every byte from the server takes.
//
// Checks, besides "no crash, no leak, no hang":
// - exact JSON: a parsed value serialises to text that parses back to the same value;
// - a decoded Document re-encodes (`restJSON()`) to JSON that decodes to the same Document;
// - a decoded Value re-encodes to JSON that decodes to the same Value, equal to itself in Firestore's order
//   (`compare(v, v) == 0`), and the order of two decoded values is antisymmetric.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONDocument(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard let json = try? JSONValue.parse(fuzzBytes(data, size)) else { return 0 }

    let text = json.serialized()
    let reparsed = try? JSONValue.parse(text)
    fuzzCheck(reparsed == json, "JSON does not round-trip: \(json.serializedString().prefix(300))")

    if let document = try? Document(restJSON: json) {
        let again = try? Document(restJSON: document.restJSON())
        fuzzCheck(again == document, "Document does not round-trip: \(document.name.prefix(100))")
        _ = document.id
    }

    var values: [FirestoreValue] = []
    if let value = try? FirestoreValue(restJSON: json) { values.append(value) }
    if case .array(let elements) = json {
        for element in elements.prefix(4) {
            if let value = try? FirestoreValue(restJSON: element) { values.append(value) }
        }
    }
    for value in values {
        let again = try? FirestoreValue(restJSON: value.restJSON)
        fuzzCheck(again == value, "Value does not round-trip: \(value.restJSON.serializedString().prefix(300))")
        fuzzCheck(FirestoreValue.compare(value, value) == 0, "a value does not sort equal to itself")
        _ = value.plainJSON.serialized()
        _ = value.hashValue
    }
    for (first, second) in zip(values, values.dropFirst()) {
        let forward = FirestoreValue.compare(first, second)
        let backward = FirestoreValue.compare(second, first)
        fuzzCheck(forward.signum() == -backward.signum(), "compare is not antisymmetric")
        if first == second { fuzzCheck(forward == 0, "equal values do not sort equal") }
    }
    return 0
}
