import FirestoreFeed
import FirestoreREST
import Testing

/// A feed group's name ranges: split points chosen evenly from a scan or from the auto-ID alphabet, the shard of a
/// document name, and each shard's query.
@Suite(.timeLimit(.minutes(1))) struct ShardRangesTests {
    static let collection = "projects/p/databases/(default)/documents/orders"

    @Test func evenlySpacedPointsSplitTheNamesIntoEqualRuns() {
        let names = (0..<10).map { "\(Self.collection)/o\($0)" }
        #expect(ShardRanges.evenlySpaced(names, shards: 3).map { $0.split(separator: "/").last } == ["o3", "o6"])
        #expect(ShardRanges.evenlySpaced(names, shards: 1) == [])
        #expect(
            ShardRanges.evenlySpaced(Array(names.prefix(2)), shards: 4).map { $0.split(separator: "/").last } == ["o1"])
    }

    @Test func autoIDPointsSplitTheAlphabetByFirstCharacter() {
        let points = ShardRanges.autoIDPoints(collection: Self.collection, shards: 4)
        #expect(points.map { $0.split(separator: "/").last } == ["F", "V", "k"])
    }

    @Test func aNameBelongsToTheShardOfItsRange() {
        let ranges = ShardRanges(splitPoints: ["\(Self.collection)/F", "\(Self.collection)/V"], shards: 3)
        #expect(ranges.shard(of: "\(Self.collection)/0abc") == 0)
        #expect(ranges.shard(of: "\(Self.collection)/F") == 1)
        #expect(ranges.shard(of: "\(Self.collection)/Uzzz") == 1)
        #expect(ranges.shard(of: "\(Self.collection)/V") == 2)
        #expect(ranges.shard(of: "\(Self.collection)/zz") == 2)
        #expect(!ranges.isEmpty(2))
        #expect(ShardRanges(splitPoints: [], shards: 3).isEmpty(1))
    }

    @Test func aShardsQueryIsTheFiltersOnItsNameRangeOrderedByName() throws {
        let db = try Firestore.emulator(host: "127.0.0.1:1", projectID: "p")
        let query = db.collection("orders").whereField("open", isEqualTo: true).order(by: "n")
        let ranges = ShardRanges(splitPoints: ["\(Self.collection)/F"], shards: 2)
        let first = try ranges.query(for: 0, of: query).structuredQuery()
        #expect(
            first["where"]
                == [
                    "compositeFilter": [
                        "op": "AND",
                        "filters": [
                            [
                                "fieldFilter": [
                                    "field": ["fieldPath": "open"], "op": "EQUAL", "value": ["booleanValue": true],
                                ]
                            ],
                            [
                                "fieldFilter": [
                                    "field": ["fieldPath": "__name__"], "op": "LESS_THAN",
                                    "value": ["referenceValue": .string("\(Self.collection)/F")],
                                ]
                            ],
                        ],
                    ]
                ])
        #expect(first["orderBy"] == [["field": ["fieldPath": "__name__"], "direction": "ASCENDING"]])
        guard
            case .array(let filters)? = try ranges.query(for: 1, of: query).structuredQuery()["where"]?[
                "compositeFilter"]?["filters"]
        else {
            Issue.record("no filters")
            return
        }
        #expect(filters.map { $0["fieldFilter"]?["op"] } == ["EQUAL", "GREATER_THAN_OR_EQUAL"])
        #expect(throws: FirestoreError.self) { try ShardRanges.check(query.limit(to: 3)) }
    }
}
