import FirestoreFeed
import FirestoreREST
import Foundation
import Testing

@testable import FirestorePostgres

/// The guarded way's `jsonb` parameter, written directly into one buffer, is byte for byte the compact JSON of the
/// `JSONValue` tree it replaced. No server needed.
@Suite(.timeLimit(.minutes(1))) struct PostgresMirrorRowsJSONTests {
    @Test func theRowsAreTheBytesOfTheTree() throws {
        let documents = [
            Document(
                name: "projects/p/databases/(default)/documents/items/a\"\\\u{e9}",
                fields: [
                    "n": .integer(.min), "d": .double(-.infinity), "m": .map(["z": .bytes(Data([0xfb, 0xff]))]),
                    "t": .timestamp(try Timestamp(seconds: 1_700_000_000, nanos: 5_000_000)), "": .array([.null]),
                ], createTime: try Timestamp(seconds: 1_767_225_601, nanos: 1),
                updateTime: try Timestamp(seconds: 1_767_225_602, nanos: 120_000_000)),
            Document(
                name: "projects/p/databases/(default)/documents/items/b", fields: [:], createTime: nil,
                updateTime: try Timestamp(seconds: 1_767_225_603, nanos: 0)),
        ]
        let tree = JSONValue.array(
            documents.map { document in
                .object([
                    "name": .string(document.name), "fields": FirestoreValue.encodeFields(document.fields),
                    "create_time": document.createTime.map { .string(MirrorTimeText.text($0)) } ?? .null,
                    "update_time": document.updateTime.map { .string(MirrorTimeText.text($0)) } ?? .null,
                ])
            })
        let written = PostgresMirrorRows.rowsJSON(documents)
        #expect(written == tree.serializedString())
        #expect(
            written
                == #"[{"create_time":"2026-01-01T00:00:01.000000001Z","fields":{"":{"arrayValue":{"values":"#
                + #"[{"nullValue":null}]}},"d":{"doubleValue":"-Infinity"},"m":{"mapValue":{"fields":{"z":"#
                + #"{"bytesValue":"+/8="}}}},"n":{"integerValue":"-9223372036854775808"},"t":{"timestampValue":"#
                + #""2023-11-14T22:13:20.005Z"}},"name":"projects/p/databases/(default)/documents/items/a\"\\é","#
                + #""update_time":"2026-01-01T00:00:02.120000000Z"},{"create_time":null,"fields":{},"#
                + #""name":"projects/p/databases/(default)/documents/items/b","#
                + #""update_time":"2026-01-01T00:00:03.000000000Z"}]"#)
    }
}
