import FirestoreFeed
import FirestorePostgres
import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The PostgreSQL mirror stores fields as REST `Value` JSON in `jsonb`, which loses nothing of it: int64 at its
/// limits (strings), bytes, timestamps to the nanosecond, references, NaN and infinities, geo points, vectors, nested
/// maps and arrays; read back, the documents equal what was written. `jsonb`'s two limits are pinned: `-0.0` reads
/// back as `0.0`, and a string holding U+0000 is refused with the batch.
@Suite(.timeLimit(.minutes(1)), PostgresFixture.enabled) struct PostgresMirrorValueTests {
    typealias F = PostgresFixture

    @Test func everyValueTypeIsStoredExactly() async throws {
        let (mirror, table) = try await F.mirror("values")
        let fields: [String: FirestoreValue] = [
            "max": .integer(.max), "min": .integer(.min), "bytes": .bytes(Data([0, 1, 2, 0xff])),
            "at": .timestamp(try Timestamp(seconds: 1_700_000_000, nanos: 123_456_789)), "nan": .double(.nan),
            "inf": .double(-.infinity), "half": .double(1.5), "tiny": .double(.leastNonzeroMagnitude),
            "huge": .double(1.7e308),
            "third": .double(1.0 / 3), "whole": .double(-1),
            "ref": .reference("projects/p/databases/(default)/documents/a/b"),
            "geo": .geoPoint(GeoPoint(latitude: 48.5, longitude: -2.25)),
            "vector": .map(["__type__": "__vector__", "value": .array([.double(0.5), .double(-1)])]),
            "nested": .map(["list": .array([.integer(1), .string("x\u{e9}\"\n"), .null, .boolean(false)])]),
            "empty": .map([:]), "none": .array([]), "text": .string("\u{1F600} \\ '"),
        ]
        let document = Document(
            name: F.prefix + "all", fields: fields, createTime: F.time(1, 1), updateTime: F.time(2, 999_999_999))
        try await mirror.apply(F.batch([.put(document)], read: 3))
        // jsonb's own text: keys by length then bytes, a space after each colon and comma.
        #expect(
            try F.lines("SELECT fields - 'tiny' - 'huge' FROM \(table)") == [
                #"{"at": {"timestampValue": "2023-11-14T22:13:20.123456789Z"}, "geo": {"geoPointValue": "#
                    + #"{"latitude": 48.5, "longitude": -2.25}}, "inf": {"doubleValue": "-Infinity"}, "max": "#
                    + #"{"integerValue": "9223372036854775807"}, "min": {"integerValue": "-9223372036854775808"}, "#
                    + #""nan": {"doubleValue": "NaN"}, "ref": {"referenceValue": "#
                    + #""projects/p/databases/(default)/documents/a/b"}, "half": {"doubleValue": 1.5}, "none": "#
                    + #"{"arrayValue": {"values": []}}, "text": {"stringValue": "😀 \\ '"}, "bytes": "#
                    + #"{"bytesValue": "AAEC/w=="}, "empty": {"mapValue": {"fields": {}}}, "third": "#
                    + #"{"doubleValue": 0.3333333333333333}, "whole": {"doubleValue": -1.0}, "nested": {"mapValue": "#
                    + #"{"fields": {"list": {"arrayValue": {"values": [{"integerValue": "1"}, {"stringValue": "#
                    + #""xé\"\n"}, {"nullValue": null}, {"booleanValue": false}]}}}}}, "vector": {"mapValue": "#
                    + #"{"fields": {"value": {"arrayValue": {"values": [{"doubleValue": 0.5}, {"doubleValue": "#
                    + #"-1.0}]}}, "__type__": {"stringValue": "__vector__"}}}}}"#
            ])
        #expect(
            try F.lines("SELECT create_time, update_time, read_time FROM \(table)")
                == ["2026-01-01T00:00:01.000000001Z 2026-01-01T00:00:02.999999999Z 2026-01-01T00:00:03.000000000Z"])
        // The jsonb operators reach into the fields.
        #expect(
            try F.lines(
                "SELECT fields -> 'max' ->> 'integerValue', (fields #>> '{half,doubleValue}')::float8 * 2 FROM \(table)"
            )
                == ["9223372036854775807 3"])
        let read = try await mirror.documents()
        #expect(read.map(\.name) == [document.name])
        #expect(read.first?.createTime == document.createTime)
        #expect(read.first?.updateTime == document.updateTime)
        #expect(read.first.map { FirestoreValue.map($0.fields).restJSON } == FirestoreValue.map(fields).restJSON)
    }

    /// `jsonb` stores numbers as `numeric`, which has no negative zero.
    @Test func negativeZeroReadsBackAsZero() async throws {
        let (mirror, _) = try await F.mirror("zero")
        try await mirror.apply(F.batch([F.put("z", updated: 2, ["z": .double(-0.0)])], read: 3))
        let read = try await mirror.documents()
        guard case .double(let zero) = read.first?.fields["z"] else {
            Issue.record("no double z in \(read)")
            return
        }
        #expect(zero == 0)
        #expect(zero.sign == .plus)
    }

    /// `jsonb` refuses U+0000 in a string: the batch fails whole with PostgreSQL's message, and nothing of it is in
    /// the table.
    @Test func aStringWithNulIsRefusedWithItsBatch() async throws {
        let (mirror, table) = try await F.mirror("nul")
        let batch = F.batch([F.put("a", updated: 2), F.put("b", updated: 2, ["s": .string("a\u{0}b")])], read: 3)
        let error = await #expect(throws: FirestoreError.self) { try await mirror.apply(batch) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("unsupported Unicode escape sequence") == true, "\(error?.message ?? "")")
        #expect(try F.rows(table) == [])
        #expect(try await mirror.resumePoint(shard: 0) == nil)
    }
}
