import Foundation
import Testing

@testable import FirestoreREST

@Suite("FirestoreValue ordering", .timeLimit(.minutes(2)))
struct ValueOrderingTests {
    /// Values written in Firestore's order: null < bool < numbers < timestamp < string < bytes < reference <
    /// geopoint < array < vector < map, and within each type in ascending order. No two are equal.
    static let ascending: [FirestoreValue] = [
        .null,
        .boolean(false),
        .boolean(true),
        .double(.nan),
        .double(-.infinity),
        .integer(-9_223_372_036_854_775_808),
        .double(-1.5),
        .integer(-1),
        .double(-0.5),
        .integer(0),
        .double(0.5),
        .integer(1),
        .double(1.5),
        .integer(9_007_199_254_740_992),
        .integer(9_007_199_254_740_993),
        .integer(9_223_372_036_854_775_807),
        .double(9.3e18),
        .double(.infinity),
        .timestamp(ts(-62_135_596_800, 0)),
        .timestamp(ts(-1, 500_000_000)),
        .timestamp(ts(0, 0)),
        .timestamp(ts(0, 1)),
        .timestamp(ts(1_714_532_645, 500_000_000)),
        .string(""),
        .string("Z"),
        .string("a"),
        .string("ab"),
        .string("b"),
        .string("z"),
        .string("é"),  // C3 A9
        .string("\u{FFFF}"),  // EF BF BF
        .string("😀"),  // F0 9F 98 80 (UTF-16 would put it before U+FFFF)
        .bytes(Data()),
        .bytes(Data([0x00])),
        .bytes(Data([0x01])),
        .bytes(Data([0x01, 0x00])),
        .bytes(Data([0xFF])),
        .reference("projects/p/databases/(default)/documents/c/a"),
        .reference("projects/p/databases/(default)/documents/c/a/x/y"),
        .reference("projects/p/databases/(default)/documents/c/a-b"),
        .reference("projects/p/databases/(default)/documents/c/b"),
        .geoPoint(GeoPoint(latitude: -10, longitude: 100)),
        .geoPoint(GeoPoint(latitude: 0, longitude: -5)),
        .geoPoint(GeoPoint(latitude: 0, longitude: 5)),
        .geoPoint(GeoPoint(latitude: 10, longitude: -100)),
        .array([]),
        .array([.null]),
        .array([.integer(1)]),
        .array([.integer(1), .integer(0)]),
        .array([.integer(1), .integer(2)]),
        .array([.double(2.5)]),
        .array([.string("a")]),
        // Vectors (maps with __type__ "__vector__"): by dimension first, then element by element.
        vector([]),
        vector([9]),
        vector([-5, 1]),
        vector([1, 2]),
        vector([1, 3]),
        vector([-9, 0, 0]),
        .map([:]),
        // A __type__ that is not "__vector__" is an ordinary map ("__type__" sorts before "a").
        .map(["__type__": .string("other"), "value": .array([])]),
        .map(["a": .integer(1)]),
        .map(["a": .integer(1), "b": .integer(0)]),
        .map(["a": .integer(2)]),
        .map(["a": .string("x")]),
        .map(["b": .null]),
    ]

    /// A vector value as REST sends it: `{"__type__": "__vector__", "value": [doubles]}`.
    static func vector(_ elements: [Double]) -> FirestoreValue {
        .map(["__type__": .string("__vector__"), "value": .array(elements.map { .double($0) })])
    }

    /// Issue 19: ordered by one field, `[1] < <vector> < {} < {a: 1}` (the emulator's order, checked live by
    /// `VectorOrderingLiveTests`); before vectors had a rank of their own, the vector sorted among the maps, after
    /// `{}`.
    @Test func aVectorSortsAfterArraysAndBeforeMaps() {
        let values: [FirestoreValue] = [
            .map(["a": .integer(1)]), .map([:]), Self.vector([1, 2, 3]), .array([.integer(1)]),
        ]
        #expect(
            values.sorted { FirestoreValue.compare($0, $1) < 0 } == [
                .array([.integer(1)]), Self.vector([1, 2, 3]), .map([:]), .map(["a": .integer(1)]),
            ])
        #expect(FirestoreValue.compare(Self.vector([1, 2]), Self.vector([1.0, 2.0])) == 0)
        #expect(FirestoreValue.compare(Self.vector([5]), .map(["__type__": .string("__vector__")])) > 0)
    }

    @Test func everyPairIsOrderedAsWritten() {
        let values = Self.ascending
        for i in values.indices {
            #expect(FirestoreValue.compare(values[i], values[i]) == 0, "\(values[i]) vs itself")
            for j in values.indices where j > i {
                #expect(FirestoreValue.compare(values[i], values[j]) < 0, "\(values[i]) < \(values[j])")
                #expect(FirestoreValue.compare(values[j], values[i]) > 0, "\(values[j]) > \(values[i])")
            }
        }
    }

    @Test(arguments: [
        (FirestoreValue.integer(1), FirestoreValue.double(1.0)),
        (.integer(0), .double(-0.0)),
        (.double(0.0), .double(-0.0)),
        (.double(.nan), .double(.nan)),
        (.integer(-9_223_372_036_854_775_808), .double(-9_223_372_036_854_775_808.0)),
        (.integer(9_007_199_254_740_992), .double(9_007_199_254_740_992.0)),
        (.timestamp(ts(5, 5)), .timestamp(ts(5, 5))),
        (.geoPoint(GeoPoint(latitude: 1, longitude: 2)), .geoPoint(GeoPoint(latitude: 1, longitude: 2))),
        (.array([.integer(1)]), .array([.double(1.0)])),
        (.map(["a": .integer(1)]), .map(["a": .double(1.0)])),
    ])
    func comparesEqual(lhs: FirestoreValue, rhs: FirestoreValue) {
        #expect(FirestoreValue.compare(lhs, rhs) == 0)
        #expect(FirestoreValue.compare(rhs, lhs) == 0)
    }

    @Test(arguments: [
        // Int64.max is below 9.3e18 and below 2^63 (the double nearest Int64.max)
        (FirestoreValue.integer(9_223_372_036_854_775_807), FirestoreValue.double(9.3e18)),
        (.integer(9_223_372_036_854_775_807), .double(9_223_372_036_854_775_808.0)),
        // exact: 2^53 + 1 is above the double 2^53
        (.double(9_007_199_254_740_992.0), .integer(9_007_199_254_740_993)),
        (.double(-9.3e18), .integer(-9_223_372_036_854_775_808)),
        (.integer(-2), .double(-1.5)),
        (.double(-1.5), .integer(-1)),
        (.integer(1), .double(1.000001)),
        (.double(.nan), .integer(-9_223_372_036_854_775_808)),
        (.double(.nan), .double(-.infinity)),
        (.integer(9_223_372_036_854_775_807), .double(.infinity)),
        (.boolean(true), .integer(-9_223_372_036_854_775_808)),
        (.double(.infinity), .timestamp(ts(-62_135_596_800, 0))),
        (.string("z"), .bytes(Data())),
        (.bytes(Data([0xFF, 0xFF])), .reference("a")),
        (.reference("z"), .geoPoint(GeoPoint(latitude: -90, longitude: -180))),
        (.geoPoint(GeoPoint(latitude: 90, longitude: 180)), .array([])),
        (.array([.map(["z": .integer(1)])]), .map([:])),
    ])
    func comparesLess(lhs: FirestoreValue, rhs: FirestoreValue) {
        #expect(FirestoreValue.compare(lhs, rhs) < 0)
        #expect(FirestoreValue.compare(rhs, lhs) > 0)
    }

    @Test func resourceNamesCompareBySegment() {
        #expect(FirestoreValue.compareResourceNames("c/a/x", "c/a-b") < 0)
        #expect(FirestoreValue.compareResourceNames("c/a-b", "c/a/x") > 0)
        #expect(FirestoreValue.compareResourceNames("c/a", "c/a/x/y") < 0)
        #expect(FirestoreValue.compareResourceNames("c/a", "c/a") == 0)
        #expect(FirestoreValue.compareResourceNames("c/B", "c/a") < 0)
    }

    @Test func sortingWithCompare() {
        let shuffled: [FirestoreValue] = [
            .string("b"), .integer(2), .null, .map([:]), .double(1.5), .boolean(true), .array([]),
            .timestamp(ts(0, 0)),
        ]
        let sorted = shuffled.sorted { FirestoreValue.compare($0, $1) < 0 }
        #expect(
            sorted == [
                .null, .boolean(true), .double(1.5), .integer(2), .timestamp(ts(0, 0)), .string("b"), .array([]),
                .map([:]),
            ])
    }
}
