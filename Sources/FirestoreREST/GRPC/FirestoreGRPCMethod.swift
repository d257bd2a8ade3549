/// The gRPC method paths of the Firestore service (`service Firestore` in `google/firestore/v1/firestore.proto`,
/// googleapis/googleapis); a call is `POST {base}/{package}.{Service}/{Method}` (`PROTOCOL-HTTP2.md`, `Path`).
package enum FirestoreGRPCMethod {
    /// `rpc Listen(stream ListenRequest) returns (stream ListenResponse)`: the realtime change stream.
    package static let listen = "/google.firestore.v1.Firestore/Listen"
    /// `rpc GetDocument(GetDocumentRequest) returns (Document)`.
    package static let getDocument = "/google.firestore.v1.Firestore/GetDocument"
}
