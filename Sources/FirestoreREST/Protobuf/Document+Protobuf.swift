import FirestoreWire

extension Document {
    /// Decodes a `google.firestore.v1.Document` message (`google/firestore/v1/document.proto`:
    /// `string name = 1`, `map<string, Value> fields = 2`, `google.protobuf.Timestamp create_time = 3`,
    /// `update_time = 4`) from the current message of `reader`. Absent fields leave `fields` empty and the
    /// times `nil`; unknown fields are skipped. Values decode as ``FirestoreValue/init(reading:)``.
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the path and byte offset for malformed wire data or
    ///   values, and for a document without a name (the REST decoder's rule as well).
    /// - Complexity: O(n) in the size of the document.
    package init(reading reader: inout ProtobufReader) throws(FirestoreError) {
        let start = reader.position
        var name = ""
        var fields: [String: FirestoreValue] = [:]
        var createTime: Timestamp?
        var updateTime: Timestamp?
        while let field = try reader.nextField() {
            switch field.number {
            case 1: name = try reader.readString(field, "name")
            case 2: try FirestoreValue.readMapEntry(field, "fields", from: &reader, into: &fields)
            case 3:
                createTime = try reader.readMessage(field, "create_time") { (nested) throws(FirestoreError) in
                    try Timestamp(reading: &nested)
                }
            case 4:
                updateTime = try reader.readMessage(field, "update_time") { (nested) throws(FirestoreError) in
                    try Timestamp(reading: &nested)
                }
            default: try reader.skip(field)
            }
        }
        guard !name.isEmpty else { throw reader.failure("Document without a name", at: start) }
        self.init(name: name, fields: fields, createTime: createTime, updateTime: updateTime)
    }

    /// Decodes one serialized `google.firestore.v1.Document` message, as ``init(reading:)``; error paths start
    /// with `Document`.
    /// - Throws: as ``init(reading:)``.
    package init(protobuf bytes: [UInt8]) throws(FirestoreError) {
        self = try ProtobufReader.read(bytes, message: "Document") { (reader) throws(FirestoreError) in
            try Document(reading: &reader)
        }
    }

    /// Writes this document's `google.firestore.v1.Document` fields: `name` (left out when empty, as proto3
    /// does), the field entries in UTF-8 key order, then `create_time` and `update_time` when set.
    /// - Complexity: O(n log n) in the size of the document.
    package func writeProtobuf(to writer: inout ProtobufWriter) {
        if !name.isEmpty { writer.writeStringField(1, name) }
        FirestoreValue.writeFields(fields, number: 2, to: &writer)
        if let createTime { writer.writeMessageField(3) { createTime.writeProtobuf(to: &$0) } }
        if let updateTime { writer.writeMessageField(4) { updateTime.writeProtobuf(to: &$0) } }
    }

    /// This document as one serialized `google.firestore.v1.Document` message.
    package var protobuf: [UInt8] {
        var writer = ProtobufWriter()
        writeProtobuf(to: &writer)
        return writer.bytes
    }
}
