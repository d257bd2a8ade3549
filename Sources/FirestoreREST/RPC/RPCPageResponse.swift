import FirestoreWire

/// The layout every paged list response of the Firestore service shares (`ListDocumentsResponse`,
/// `ListCollectionIdsResponse`, `PartitionQueryResponse` in `google/firestore/v1/firestore.proto`): the page's
/// elements in `repeated ... = 1`, and `string next_page_token = 2`, empty on the last page.
enum RPCPageResponse {
    /// Decodes one page of `message` (named `name` in error paths): each field 1 read by `element` (given the
    /// reader and the field; it reads the field's value), field 2 as the next page token (`nil` when empty); unknown
    /// fields are skipped.
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the field and byte offset for malformed wire data, or what
    ///   `element` throws.
    /// - Complexity: O(n) in the bytes.
    static func decode<Element>(
        _ message: [UInt8], name: StaticString,
        element: (inout ProtobufReader, ProtobufField) throws(FirestoreError) -> Element
    ) throws(FirestoreError) -> (elements: [Element], nextPageToken: String?) {
        var elements: [Element] = []
        var token = ""
        try ProtobufReader.read(message, message: name) { (reader) throws(FirestoreError) in
            while let field = try reader.nextField() {
                switch field.number {
                case 1: elements.append(try element(&reader, field))
                case 2: token = try reader.readString(field, "next_page_token")
                default: try reader.skip(field)
                }
            }
        }
        return (elements, token.isEmpty ? nil : token)
    }
}
