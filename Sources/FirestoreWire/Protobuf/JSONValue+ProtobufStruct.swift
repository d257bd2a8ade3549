extension JSONValue {
    /// Decodes a `google.protobuf.Struct` message (`google/protobuf/struct.proto`: `map<string, Value> fields = 1`)
    /// into the members its proto3 JSON form has.
    /// - Throws: ``FirestoreError`` `.dataLoss` naming the field and byte offset for malformed wire data.
    /// - Complexity: O(n) in the bytes.
    package static func readProtobufStruct(_ reader: inout ProtobufReader) throws(FirestoreError)
        -> [String: JSONValue]
    {
        var members: [String: JSONValue] = [:]
        while let field = try reader.nextField() {
            guard field.number == 1 else {
                try reader.skip(field)
                continue
            }
            try reader.readMessage(field, "fields") { (entry) throws(FirestoreError) in
                var key = ""
                var value = JSONValue.null
                while let member = try entry.nextField() {
                    switch member.number {
                    case 1: key = try entry.readString(member, "key")
                    case 2:
                        value = try entry.readMessage(member, "value") { (nested) throws(FirestoreError) in
                            try JSONValue(readingProtobufValue: &nested)
                        }
                    default: try entry.skip(member)
                    }
                }
                members[key] = value
            }
        }
        return members
    }

    /// Decodes a `google.protobuf.Value` message: `NullValue null_value = 1`, `double number_value = 2`,
    /// `string string_value = 3`, `bool bool_value = 4`, `Struct struct_value = 5`, `ListValue list_value = 6`
    /// (`repeated Value values = 1`). A number that is a whole value within `Int64` becomes ``integer(_:)``, as the
    /// JSON parser reads the same number in the REST form (`1`, not `1.0`); a message without a kind is
    /// ``null``.
    /// - Throws: ``FirestoreError`` `.dataLoss` for malformed wire data.
    package init(readingProtobufValue reader: inout ProtobufReader) throws(FirestoreError) {
        var value = JSONValue.null
        while let field = try reader.nextField() {
            switch field.number {
            case 1:
                try reader.skip(field)
                value = .null
            case 2:
                let number = try reader.readDouble(field, "number_value")
                if let whole = Int64(exactly: number) {
                    value = .integer(whole)
                } else {
                    value = .double(number)
                }
            case 3: value = .string(try reader.readString(field, "string_value"))
            case 4: value = .bool(try reader.readBool(field, "bool_value"))
            case 5:
                value = .object(
                    try reader.readMessage(field, "struct_value") { (object) throws(FirestoreError) in
                        try JSONValue.readProtobufStruct(&object)
                    })
            case 6:
                var elements: [JSONValue] = []
                try reader.readMessage(field, "list_value") { (list) throws(FirestoreError) in
                    while let member = try list.nextField() {
                        if member.number == 1 {
                            elements.append(
                                try list.readMessage(member, "values") { (element) throws(FirestoreError) in
                                    try JSONValue(readingProtobufValue: &element)
                                })
                        } else {
                            try list.skip(member)
                        }
                    }
                }
                value = .array(elements)
            default: try reader.skip(field)
            }
        }
        self = value
    }
}
