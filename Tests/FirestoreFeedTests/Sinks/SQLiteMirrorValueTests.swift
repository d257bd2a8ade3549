import FirestoreFeed
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The SQLite mirror stores fields as REST `Value` JSON that loses nothing: int64 at its limits, bytes, timestamps to
/// the nanosecond, references, NaN and infinities, geo points, vectors, nested maps and arrays; read back, the
/// documents equal what was written.
@Suite(.timeLimit(.minutes(1))) struct SQLiteMirrorValueTests {
    typealias F = MirrorFixture

    @Test func everyValueTypeIsStoredExactly() async throws {
        let path = CheckpointFiles.temporaryPath("mirror")
        defer { CheckpointFiles.remove(path) }
        let mirror = try await SQLiteMirror(path: path)
        let fields: [String: FirestoreValue] = [
            "max": .integer(.max), "min": .integer(.min), "bytes": .bytes(Data([0, 1, 2, 0xff])),
            "at": .timestamp(try Timestamp(seconds: 1_700_000_000, nanos: 123_456_789)), "nan": .double(.nan),
            "inf": .double(-.infinity), "half": .double(1.5),
            "ref": .reference("projects/p/databases/(default)/documents/a/b"),
            "geo": .geoPoint(GeoPoint(latitude: 48.5, longitude: -2.25)),
            "vector": .map(["__type__": "__vector__", "value": .array([.double(0.5), .double(-1)])]),
            "nested": .map(["list": .array([.integer(1), .string("x\u{e9}\"\n"), .null, .boolean(false)])]),
        ]
        let document = Document(
            name: F.prefix + "all", fields: fields, createTime: F.time(1, 1), updateTime: F.time(2, 999_999_999))
        try await mirror.apply(F.batch([.put(document)], read: 3))
        let expected =
            #"{"at":{"timestampValue":"2023-11-14T22:13:20.123456789Z"},"bytes":{"bytesValue":"AAEC/w=="},"#
            + #""geo":{"geoPointValue":{"latitude":48.5,"longitude":-2.25}},"half":{"doubleValue":1.5},"#
            + #""inf":{"doubleValue":"-Infinity"},"max":{"integerValue":"9223372036854775807"},"#
            + #""min":{"integerValue":"-9223372036854775808"},"nan":{"doubleValue":"NaN"},"#
            + #""nested":{"mapValue":{"fields":{"list":{"arrayValue":{"values":[{"integerValue":"1"},"#
            + #"{"stringValue":"xé\"\n"},{"nullValue":null},{"booleanValue":false}]}}}}},"#
            + #""ref":{"referenceValue":"projects/p/databases/(default)/documents/a/b"},"#
            + #""vector":{"mapValue":{"fields":{"__type__":{"stringValue":"__vector__"},"#
            + #""value":{"arrayValue":{"values":[{"doubleValue":0.5},{"doubleValue":-1.0}]}}}}}}"#
        #expect(F.lines(path, "SELECT fields FROM documents") == [expected])
        #expect(
            F.lines(path, "SELECT create_time || ' ' || update_time || ' ' || read_time FROM documents")
                == ["2026-01-01T00:00:01.000000001Z 2026-01-01T00:00:02.999999999Z 2026-01-01T00:00:03.000000000Z"])
        let read = try await mirror.documents()
        #expect(read.map(\.name) == [document.name])
        #expect(read.first?.createTime == document.createTime)
        #expect(read.first?.updateTime == document.updateTime)
        #expect(read.first.map { FirestoreValue.map($0.fields).restJSON } == FirestoreValue.map(fields).restJSON)
    }
}
