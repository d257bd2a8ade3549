/// Hand-built protobuf bytes for the gRPC tests (the real codec lives elsewhere): just the two wire types the
/// test requests need (protobuf encoding guide: tag = field number << 3 | wire type; varint 0,
/// length-delimited 2).
enum HandProto {
    static func varint(_ value: Int) -> [UInt8] {
        var value = UInt64(value)
        var bytes: [UInt8] = []
        while value >= 0x80 {
            bytes.append(UInt8(value & 0x7F) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
        return bytes
    }

    /// A length-delimited field (string, bytes or embedded message).
    static func field(_ number: Int, _ bytes: [UInt8]) -> [UInt8] {
        varint(number << 3 | 2) + varint(bytes.count) + bytes
    }

    static func field(_ number: Int, _ text: String) -> [UInt8] {
        field(number, Array(text.utf8))
    }

    /// A varint field (int32, enum, bool).
    static func field(_ number: Int, varint value: Int) -> [UInt8] {
        varint(number << 3) + varint(value)
    }

    /// `GetDocumentRequest { name = 1 }` (google/firestore/v1/firestore.proto).
    static func getDocumentRequest(name: String) -> [UInt8] {
        field(1, name)
    }

    /// `ListenRequest { database = 1; add_target = 2: Target { documents = 3: DocumentsTarget { documents = 2 };
    /// target_id = 5 } }` (google/firestore/v1/firestore.proto).
    static func listenRequest(database: String, documents: [String], targetID: Int) -> [UInt8] {
        let documentsTarget = documents.flatMap { field(2, $0) }
        let target = field(3, documentsTarget) + field(5, varint: targetID)
        return field(1, database) + field(2, target)
    }

    /// Whether `bytes` contains `part` as a contiguous run.
    static func contains(_ bytes: [UInt8], _ part: [UInt8]) -> Bool {
        guard !part.isEmpty, bytes.count >= part.count else { return part.isEmpty }
        return (0...(bytes.count - part.count)).contains { bytes[$0..<($0 + part.count)].elementsEqual(part) }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
            .joined(separator: " ")
    }
}
