import Foundation

@testable import FirestoreREST

/// The proto3 JSON form of a captured `CommitRequest` or `GetDocumentRequest` (`google/firestore/v1/firestore.proto`
/// and `write.proto`), decoded field by field from the protobuf the gRPC client sent, so it can be compared with a
/// conformance file's `request` as the REST body is. Written from the proto's field numbers, apart from the
/// encoder it checks; documents and values decode with the client's own readers (``Document/init(reading:)``,
/// ``FirestoreValue/init(reading:)``), which the Listen conformance tests pin.
enum CommitRequestProtoJSON {
    /// `GetDocumentRequest`: `name = 1`.
    static func getDocument(_ bytes: [UInt8]) throws(FirestoreError) -> JSONValue {
        try ProtobufReader.read(bytes, message: "GetDocumentRequest") { (reader) throws(FirestoreError) -> JSONValue in
            var members: [String: JSONValue] = [:]
            while let field = try reader.nextField() {
                guard field.number == 1 else { throw unexpected(field, in: "GetDocumentRequest") }
                members["name"] = .string(try reader.readString(field, "name"))
            }
            return .object(members)
        }
    }

    /// `CommitRequest`: `database = 1`, `repeated Write writes = 2`, `bytes transaction = 3`.
    static func commit(_ bytes: [UInt8]) throws(FirestoreError) -> JSONValue {
        try ProtobufReader.read(bytes, message: "CommitRequest") { (reader) throws(FirestoreError) -> JSONValue in
            var members: [String: JSONValue] = [:]
            var writes: [JSONValue] = []
            while let field = try reader.nextField() {
                switch field.number {
                case 1: members["database"] = .string(try reader.readString(field, "database"))
                case 2:
                    writes.append(
                        try reader.readMessage(field, "writes") { (w) throws(FirestoreError) in try write(&w) })
                case 3:
                    members["transaction"] = .string(
                        Data(try reader.readByteArray(field, "transaction")).base64EncodedString())
                default: throw unexpected(field, in: "CommitRequest")
                }
            }
            members["writes"] = .array(writes)
            return .object(members)
        }
    }

    /// `Write`: `Document update = 1`, `string delete = 2`, `DocumentMask update_mask = 3`,
    /// `Precondition current_document = 4`, `repeated FieldTransform update_transforms = 7`.
    static func write(_ reader: inout ProtobufReader) throws(FirestoreError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        var transforms: [JSONValue] = []
        while let field = try reader.nextField() {
            switch field.number {
            case 1:
                let document = try reader.readMessage(field, "update") { (d) throws(FirestoreError) in
                    try Document(reading: &d)
                }
                members["update"] = document.restJSON(includingTimes: false)
            case 2: members["delete"] = .string(try reader.readString(field, "delete"))
            case 3:
                let paths = try reader.readMessage(field, "update_mask") {
                    (mask) throws(FirestoreError) -> [JSONValue] in
                    var paths: [JSONValue] = []
                    while let path = try mask.nextField() {
                        guard path.number == 1 else { throw unexpected(path, in: "DocumentMask") }
                        paths.append(.string(try mask.readString(path, "field_paths")))
                    }
                    return paths
                }
                members["updateMask"] = ["fieldPaths": .array(paths)]
            case 4:
                members["currentDocument"] = try reader.readMessage(field, "current_document") {
                    (precondition) throws(FirestoreError) -> JSONValue in
                    var members: [String: JSONValue] = [:]
                    while let part = try precondition.nextField() {
                        switch part.number {
                        case 1: members["exists"] = .bool(try precondition.readBool(part, "exists"))
                        case 2:
                            let time = try precondition.readMessage(part, "update_time") { (t) throws(FirestoreError) in
                                try Timestamp(reading: &t)
                            }
                            members["updateTime"] = .string(time.rfc3339)
                        default: throw unexpected(part, in: "Precondition")
                        }
                    }
                    return .object(members)
                }
            case 7:
                transforms.append(
                    try reader.readMessage(field, "update_transforms") { (t) throws(FirestoreError) in
                        try fieldTransform(&t)
                    })
            default: throw unexpected(field, in: "Write")
            }
        }
        if !transforms.isEmpty { members["updateTransforms"] = .array(transforms) }
        return .object(members)
    }

    /// `DocumentTransform.FieldTransform`: `field_path = 1`, then one of `ServerValue set_to_server_value = 2`,
    /// `Value increment = 3`, `maximum = 4`, `minimum = 5`, `ArrayValue append_missing_elements = 6`,
    /// `remove_all_from_array = 7`.
    static func fieldTransform(_ reader: inout ProtobufReader) throws(FirestoreError) -> JSONValue {
        var members: [String: JSONValue] = [:]
        while let field = try reader.nextField() {
            switch field.number {
            case 1: members["fieldPath"] = .string(try reader.readString(field, "field_path"))
            case 2:
                let number = try reader.readInt32(field, "set_to_server_value")
                members["setToServerValue"] = number == 1 ? "REQUEST_TIME" : .integer(Int64(number))
            case 3, 4, 5:
                let value = try reader.readMessage(field, "value") { (v) throws(FirestoreError) in
                    try FirestoreValue(reading: &v)
                }
                members[["increment", "maximum", "minimum"][Int(field.number) - 3]] = value.restJSON
            case 6, 7:
                let values = try reader.readMessage(field, "array") { (array) throws(FirestoreError) -> [JSONValue] in
                    var values: [JSONValue] = []
                    while let element = try array.nextField() {
                        guard element.number == 1 else { throw unexpected(element, in: "ArrayValue") }
                        values.append(
                            try array.readMessage(element, "values") { (v) throws(FirestoreError) in
                                try FirestoreValue(reading: &v)
                            }.restJSON)
                    }
                    return values
                }
                members[field.number == 6 ? "appendMissingElements" : "removeAllFromArray"] = ["values": .array(values)]
            default: throw unexpected(field, in: "FieldTransform")
            }
        }
        return .object(members)
    }

    /// `json` with every empty `fields` map left out: protobuf cannot tell an empty map from a missing one, so
    /// neither can a comparison of what the gRPC client sent.
    static func withoutEmptyFieldMaps(_ json: JSONValue) -> JSONValue {
        switch json {
        case .object(let members):
            var kept: [String: JSONValue] = [:]
            for (key, value) in members where !(key == "fields" && value == .object([:])) {
                kept[key] = withoutEmptyFieldMaps(value)
            }
            return .object(kept)
        case .array(let elements): return .array(elements.map(withoutEmptyFieldMaps))
        default: return json
        }
    }

    private static func unexpected(_ field: ProtobufField, in message: String) -> FirestoreError {
        FirestoreError(code: .dataLoss, message: "\(message): unexpected field \(field.number)")
    }
}
