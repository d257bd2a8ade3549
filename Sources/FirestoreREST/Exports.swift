/// The wire below the client (JSON, Protobuf, curl HTTP, HTTP/2, gRPC; ``FirestoreError`` and the transports) is the
/// internal `FirestoreWire` module; `import FirestoreREST` brings its public declarations with the client's.
@_exported import FirestoreWire
