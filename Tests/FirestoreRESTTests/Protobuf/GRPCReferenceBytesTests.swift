import FirestoreFeed
import Foundation
import Testing

@testable import FirestoreREST

/// Bytes produced once, offline, by Google's protobuf runtime: python `protobuf` 7.36.2 (pip), with message
/// descriptors written by hand from the field numbers of googleapis `google/firestore/v1/document.proto`
/// (`Value`, `ArrayValue`, `MapValue`, `Document`), `write.proto` (`DocumentChange`), `firestore.proto`
/// (`ListenResponse.document_change = 3`), `google/type/latlng.proto` and the runtime's own
/// `google/protobuf/timestamp.proto`, serialized with `SerializeToString(deterministic=True)` (map entries in
/// key order, repeated `int32` packed). The message built:
///
/// ```
/// document_change {
///   document { name "projects/p/databases/(default)/documents/fruits/apple"
///     fields: name "Äpfel 🍎", kcal -52, ratio -inf, tags ["red", false],
///             origin { where: LatLng(51.5, -0.125), when: Timestamp(-1 s, 500 ns) }, none null, raw 00 ff
///     create_time { seconds 1714564800 } update_time { seconds 1714564801 nanos 123456000 } }
///   target_ids [1, 2] removed_target_ids [3] }
/// ```
@Suite("GRPC reference bytes", .timeLimit(.minutes(2)))
struct GRPCReferenceBytesTests {
    static let reference = hex(
        """
        1a 90 02 0a 86 02 0a 35 70 72 6f 6a 65 63 74 73 2f 70 2f 64 61 74 61 62 61 73 65 73 2f 28 64 65
        66 61 75 6c 74 29 2f 64 6f 63 75 6d 65 6e 74 73 2f 66 72 75 69 74 73 2f 61 70 70 6c 65 12 13 0a
        04 6b 63 61 6c 12 0b 10 cc ff ff ff ff ff ff ff ff 01 12 16 0a 04 6e 61 6d 65 12 0e 8a 01 0b c3
        84 70 66 65 6c 20 f0 9f 8d 8e 12 0a 0a 04 6e 6f 6e 65 12 02 58 00 12 45 0a 06 6f 72 69 67 69 6e
        12 3b 32 39 0a 18 0a 04 77 68 65 6e 12 10 52 0e 08 ff ff ff ff ff ff ff ff ff 01 10 f4 03 0a 1d
        0a 05 77 68 65 72 65 12 14 42 12 09 00 00 00 00 00 c0 49 40 11 00 00 00 00 00 00 c0 bf 12 12 0a
        05 72 61 74 69 6f 12 09 19 00 00 00 00 00 00 f0 ff 12 0c 0a 03 72 61 77 12 05 92 01 02 00 ff 12
        16 0a 04 74 61 67 73 12 0e 4a 0c 0a 06 8a 01 03 72 65 64 0a 02 08 00 1a 06 08 c0 dd c8 b1 06 22
        0b 08 c1 dd c8 b1 06 10 80 94 ef 3a 2a 02 01 02 32 01 03
        """)

    static let document = Document(
        name: "projects/p/databases/(default)/documents/fruits/apple",
        fields: [
            "name": "Äpfel 🍎", "kcal": -52, "ratio": .double(-.infinity), "tags": ["red", false],
            "origin": .map([
                "where": .geoPoint(GeoPoint(latitude: 51.5, longitude: -0.125)), "when": .timestamp(ts(-1, 500)),
            ]),
            "none": .null, "raw": .bytes(Data([0x00, 0xFF])),
        ],
        createTime: ts(1_714_564_800), updateTime: ts(1_714_564_801, 123_456_000))

    @Test("the reference ListenResponse decodes to the message it was built from")
    func decodesReference() throws {
        let expected = ListenDocumentChange(document: Self.document, targetIDs: [1, 2], removedTargetIDs: [3])
        #expect(try ListenResponse(protobuf: Self.reference) == .documentChange(expected))
    }

    @Test("the Document encoder writes the reference runtime's deterministic bytes")
    func encodesLikeReference() {
        // ListenResponse: 1a 90 02 (272 bytes); DocumentChange: 0a 86 02 (262 bytes) = the Document
        let documentBytes = Array(Self.reference[6..<(6 + 262)])
        #expect(Self.document.protobuf == documentBytes)
    }
}
