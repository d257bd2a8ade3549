import Foundation

// fuzz-modules: FirestoreWire FirestoreREST
// fuzz-seeds: stream
@testable import FirestoreREST

// Fuzz target StreamDecoders: a runQuery or batchGet response body -> `Firestore.decodeRunQuery` (the
// streaming decoder on the bytes, and the tree decoder on the parsed JSON) / `Firestore.decodeBatchGet`, and
// the error decoding of a failed response (`FirestoreError(status:body:)`).
//
// Checks, besides "no crash, no leak, no hang":
// - the streaming runQuery decoder (`decodeRunQuery(body:)`, one element at a time) and the tree decoder
//   agree: both accept a body, with equal results, or both refuse it;
// - within the streaming decoder, the bytes decoder (`RunQueryElementDecoder`) and the per-element tree path
//   give the same response or the same error;
// - a decoded runQuery response always has a readTime (a body without one is broken, never "no documents"),
//   a non-negative skippedResults, and as many documents as the body has elements with a `document`;
// - a decoded batchGet response lists each found document under its own name.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStreamDecoders(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = fuzzBytes(data, size)
    for status in [400, 404, 429, 502, 503] {
        let error = FirestoreError(status: status, body: body)
        fuzzCheck(error.httpStatus == status, "error lost its HTTP status")
    }
    let streamed = try? Firestore.decodeRunQuery(body: body)
    // Each element straight from its bytes where it can (issue 37), or every element through its tree: the
    // same response or the same error, word for word.
    let bytesFirst = Result { () throws(FirestoreError) in try Firestore.decodeRunQuery(body: body) }
    let treeOnly = Result { () throws(FirestoreError) in try Firestore.decodeRunQuery(body: body, bytesFirst: false) }
    fuzzCheck(bytesFirst == treeOnly, "the bytes decoder and the tree path disagree (result or error)")
    guard let json = try? JSONValue.parse(body) else {
        fuzzCheck(streamed == nil, "the streaming decoder accepted a body that is not JSON")
        return 0
    }
    let tree = try? Firestore.decodeRunQuery(json)
    fuzzCheck(streamed == tree, "streaming and tree runQuery decoders disagree")

    if let response = tree {
        fuzzCheck(response.readTime != nil, "runQuery response without readTime accepted")
        fuzzCheck(response.skippedResults >= 0, "negative skippedResults")
        let withDocument = json.arrayValue?.filter { $0["document"] != nil }.count ?? 0
        fuzzCheck(response.documents.count == withDocument, "runQuery lost or invented documents")
    }
    if let response = try? Firestore.decodeBatchGet(json) {
        for (name, document) in response.found {
            fuzzCheck(document.name == name.name, "batchGet filed a document under another name")
        }
    }
    return 0
}
