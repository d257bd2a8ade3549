import Foundation

// fuzz-modules: FirestoreWire FirestoreREST FirestoreFeed
// fuzz-seeds: listen
@testable import FirestoreFeed
@testable import FirestoreREST

// Fuzz target ListenResponseDecoder: bytes -> `ListenResponse(protobuf:)` (one Listen stream message body,
// `google/firestore/v1/firestore.proto`), and the same bytes as a `Value` and a `Document`
// (`document.proto`).
//
// Checks, besides "no crash, no leak, no hang":
// - every refusal is a `FirestoreError` with code `.dataLoss` whose message ends in "at byte N" with N
//   inside the input;
// - a decoded document (from a `document_change`, or the input read as a `Document`) re-encodes to bytes
//   that decode to an equal document, and re-encoding that is a fixed point (canonical bytes);
// - the same for the input read as a `Value`;
// - decoding is deterministic: the same bytes decode to the same response twice.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzListenResponseDecoder(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))

    func checkRefusal(_ error: FirestoreError, _ what: String) {
        fuzzCheck(error.code == .dataLoss, "\(what): refused with \(error.code), not dataLoss: \(error.message)")
        guard let range = error.message.range(of: " at byte ", options: .backwards),
            let offset = Int(error.message[range.upperBound...])
        else {
            fuzzCheck(false, "\(what): error without a byte offset: \(error.message)")
            return
        }
        fuzzCheck(offset >= 0 && offset <= size, "\(what): offset \(offset) outside the \(size)-byte input")
    }

    func checkRoundTrip(_ document: Document, _ what: String) {
        let encoded = document.protobuf
        do {
            let again = try Document(protobuf: encoded)
            fuzzCheck(again == document, "\(what): document does not survive a re-encoding")
            fuzzCheck(again.protobuf == encoded, "\(what): re-encoding is not a fixed point")
        } catch {
            fuzzCheck(false, "\(what): re-encoded document refused: \(error.message)")
        }
    }

    do {
        let response = try ListenResponse(protobuf: bytes)
        fuzzCheck((try? ListenResponse(protobuf: bytes)) == response, "decoding is not deterministic")
        if case .documentChange(let change) = response { checkRoundTrip(change.document, "document_change") }
    } catch {
        checkRefusal(error, "ListenResponse")
    }

    do {
        checkRoundTrip(try Document(protobuf: bytes), "Document")
    } catch {
        checkRefusal(error, "Document")
    }

    do {
        let value = try FirestoreValue(protobuf: bytes)
        let encoded = value.protobuf
        let again = try? FirestoreValue(protobuf: encoded)
        fuzzCheck(again == value, "a value does not survive a re-encoding")
        fuzzCheck(again?.protobuf == encoded, "value re-encoding is not a fixed point")
    } catch {
        checkRefusal(error, "Value")
    }
    return 0
}
