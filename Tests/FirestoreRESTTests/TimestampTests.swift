import Foundation
import Testing

@testable import FirestoreREST

@Suite("Timestamp", .timeLimit(.minutes(2)))
struct TimestampTests {
    // MARK: Parsing RFC 3339

    @Test(
        arguments: [
            ("1970-01-01T00:00:00Z", 0, 0),
            ("2024-05-01T00:00:00Z", 1_714_521_600, 0),
            ("2024-05-01T03:04:05Z", 1_714_532_645, 0),
            ("2024-05-01T03:04:05.5Z", 1_714_532_645, 500_000_000),
            ("2024-05-01T03:04:05.123Z", 1_714_532_645, 123_000_000),
            ("2024-05-01T03:04:05.123456Z", 1_714_532_645, 123_456_000),
            ("2024-05-01T03:04:05.123456789Z", 1_714_532_645, 123_456_789),
            ("2024-05-01T03:04:05.000000001Z", 1_714_532_645, 1),
            ("2024-05-01T03:04:05.000Z", 1_714_532_645, 0),
            ("2024-05-01T05:04:05.5+02:00", 1_714_532_645, 500_000_000),
            ("2024-04-30T22:34:05-04:30", 1_714_532_645, 0),
            ("2024-05-01T03:04:05+00:00", 1_714_532_645, 0),
            ("2024-05-01t03:04:05z", 1_714_532_645, 0),
            ("2026-11-29T12:19:29.173424Z", 1_795_954_769, 173_424_000),
            ("2024-02-29T00:00:00Z", 1_709_164_800, 0),
            ("2000-02-29T12:00:00Z", 951_825_600, 0),
            ("1900-03-01T00:00:00Z", -2_203_891_200, 0),
            ("1969-12-31T23:59:59.5Z", -1, 500_000_000),
            ("1969-12-31T23:59:59Z", -1, 0),
            ("1969-12-31T23:59:59.999999999Z", -1, 999_999_999),
            ("0001-01-01T00:00:00Z", -62_135_596_800, 0),
            ("9999-12-31T23:59:59.999999999Z", 253_402_300_799, 999_999_999),
        ] as [(String, Int64, Int32)])
    func parses(text: String, seconds: Int64, nanos: Int32) throws {
        let time = try Timestamp(rfc3339: text)
        #expect(time.seconds == seconds)
        #expect(time.nanos == nanos)
    }

    @Test(arguments: [
        "2023-02-30T00:00:00Z",  // no such date
        "2023-02-29T00:00:00Z",  // not a leap year
        "1900-02-29T00:00:00Z",  // century, not a leap year
        "2024-04-31T00:00:00Z",
        "2024-13-01T00:00:00Z",
        "2024-00-01T00:00:00Z",
        "2024-05-00T00:00:00Z",
        "2024-05-01T03:04:05.1234567891Z",  // 10 fraction digits
        "2024-05-01T24:00:00Z",
        "2024-05-01T23:60:00Z",
        "2024-05-01T23:59:60Z",  // leap second
        "2024-05-01T03:04:05",  // no zone
        "2024-05-01 03:04:05Z",
        "2024-05-01T03:04:05.Z",
        "2024-05-01T03:04:05Zjunk",
        "2024-05-01T03:04:05+02",
        "2024-05-01T03:04:05+24:00",
        "2024-5-01T03:04:05Z",
        "0000-12-31T23:59:59Z",  // before 0001-01-01
        "0001-01-01T00:00:00+00:01",  // before 0001-01-01 once the offset is applied
        "9999-12-31T23:59:59-00:01",  // after 9999-12-31 once the offset is applied
        "",
    ])
    func rejects(text: String) {
        let error = #expect(throws: FirestoreError.self) { try Timestamp(rfc3339: text) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func errorNamesTextAndByteOffset() {
        let error = #expect(throws: FirestoreError.self) { try Timestamp(rfc3339: "2024-05-01T03:04:05") }
        #expect(error?.message.contains("\"2024-05-01T03:04:05\"") == true)
        #expect(error?.message.contains("at byte 19") == true)
    }

    @Test func tenFractionDigitsErrorNamesTheDigit() {
        let error = #expect(throws: FirestoreError.self) {
            try Timestamp(rfc3339: "2024-05-01T03:04:05.1234567891Z")
        }
        #expect(error?.message.contains("more than 9 fraction digits") == true)
        #expect(error?.message.contains("at byte 29") == true)
    }

    // MARK: Formatting RFC 3339

    @Test(
        arguments: [
            (0, 0, "1970-01-01T00:00:00Z"),
            (1_714_532_645, 0, "2024-05-01T03:04:05Z"),
            (1_714_532_645, 500_000_000, "2024-05-01T03:04:05.500Z"),
            (1_714_532_645, 100_000_000, "2024-05-01T03:04:05.100Z"),
            (1_714_532_645, 123_000_000, "2024-05-01T03:04:05.123Z"),
            (1_714_532_645, 1_000_000, "2024-05-01T03:04:05.001Z"),
            (1_714_532_645, 123_456_000, "2024-05-01T03:04:05.123456Z"),
            (1_714_532_645, 1_000, "2024-05-01T03:04:05.000001Z"),
            (1_714_532_645, 123_456_789, "2024-05-01T03:04:05.123456789Z"),
            (1_714_532_645, 1, "2024-05-01T03:04:05.000000001Z"),
            (1_795_954_769, 173_424_000, "2026-11-29T12:19:29.173424Z"),
            (951_825_600, 0, "2000-02-29T12:00:00Z"),
            (-1, 500_000_000, "1969-12-31T23:59:59.500Z"),
            (-1, 0, "1969-12-31T23:59:59Z"),
            (-86_400, 0, "1969-12-31T00:00:00Z"),
            (-86_401, 0, "1969-12-30T23:59:59Z"),
            (-2_203_891_200, 0, "1900-03-01T00:00:00Z"),
            (-62_135_596_800, 0, "0001-01-01T00:00:00Z"),
            (253_402_300_799, 999_999_999, "9999-12-31T23:59:59.999999999Z"),
        ] as [(Int64, Int32, String)])
    func formats(seconds: Int64, nanos: Int32, expected: String) throws {
        let time = try Timestamp(seconds: seconds, nanos: nanos)
        #expect(time.rfc3339 == expected)
        #expect(time.description == expected)
    }

    @Test func offsetIsNormalisedToUTC() throws {
        #expect(try Timestamp(rfc3339: "2024-05-01T05:04:05.5+02:00").rfc3339 == "2024-05-01T03:04:05.500Z")
    }

    // MARK: Validation

    @Test(
        arguments: [
            (0, -1),
            (0, 1_000_000_000),
            (-62_135_596_801, 0),
            (253_402_300_800, 0),
            (Int64.max, 0),
            (Int64.min, 0),
        ] as [(Int64, Int32)])
    func rejectsOutOfRange(seconds: Int64, nanos: Int32) {
        let error = #expect(throws: FirestoreError.self) { try Timestamp(seconds: seconds, nanos: nanos) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func minimumAndMaximum() {
        #expect(Timestamp.minimum.rfc3339 == "0001-01-01T00:00:00Z")
        #expect(Timestamp.maximum.rfc3339 == "9999-12-31T23:59:59.999999999Z")
    }

    // MARK: Date conversion

    @Test(
        arguments: [
            (0.0, 0, 0),
            (1.5, 1, 500_000_000),
            (-0.5, -1, 500_000_000),
            (-1.0, -1, 0),
            (-1.25, -2, 750_000_000),
            (1_714_532_645.5, 1_714_532_645, 500_000_000),
            (1_714_532_645.123456, 1_714_532_645, 123_456_000),
        ] as [(Double, Int64, Int32)])
    func fromDate(interval: Double, seconds: Int64, nanos: Int32) {
        let time = Timestamp(date: Date(timeIntervalSince1970: interval))
        #expect(time.seconds == seconds)
        #expect(time.nanos == nanos)
    }

    @Test func toDate() throws {
        #expect(try Timestamp(seconds: 1, nanos: 500_000_000).dateValue == Date(timeIntervalSince1970: 1.5))
        #expect(try Timestamp(seconds: -1, nanos: 500_000_000).dateValue == Date(timeIntervalSince1970: -0.5))
        #expect(try Timestamp(seconds: 1_714_532_645, nanos: 0).dateValue == Date(timeIntervalSince1970: 1_714_532_645))
    }

    @Test func dateRoundTripKeepsMicroseconds() throws {
        let time = try Timestamp(rfc3339: "2026-11-29T12:19:29.173424Z")
        #expect(Timestamp(date: time.dateValue).rfc3339 == "2026-11-29T12:19:29.173424Z")
    }

    // MARK: Ordering

    @Test func ordering() throws {
        #expect(ts(-1, 999_999_999) < ts(0, 0))
        #expect(ts(0, 1) > ts(0, 0))
        #expect(ts(5, 0) < ts(5, 1))
        #expect(!(ts(5, 1) < ts(5, 1)))
        #expect(ts(5, 1) == ts(5, 1))
    }
}
