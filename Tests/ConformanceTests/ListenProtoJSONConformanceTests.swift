import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Testing

/// Every `ListenResponse` of Google's conformance `listen-*.json` tests, decoded and encoded again, is the
/// same proto3 JSON (semantic equality, `ProtoJSON.equal`): the form a cassette records a Listen session in
/// loses nothing the watch protocol reads.
@Suite(.timeLimit(.minutes(2))) struct ListenProtoJSONConformanceTests {
    @Test(arguments: WatchConformanceTests.names) func responsesRoundTrip(_ name: String) throws {
        let responses = try #require(try ConformanceData.test(name)["listen"]?["responses"]?.arrayValue)
        #expect(!responses.isEmpty)
        for (index, json) in responses.enumerated() {
            let response = try ListenResponse(protoJSON: json)
            #expect(ProtoJSON.equal(response.protoJSON, json), "\(name) response \(index)")
            #expect(try ListenResponse(protoJSON: response.protoJSON) == response, "\(name) response \(index)")
        }
    }

    @Test func theConformanceResponsesHoldEveryMessageKind() throws {
        var kinds: Set<String> = []
        for name in WatchConformanceTests.names {
            for json in try ConformanceData.test(name)["listen"]?["responses"]?.arrayValue ?? [] {
                if case .object(let members) = json { kinds.formUnion(members.keys) }
            }
        }
        #expect(kinds == ["targetChange", "documentChange", "documentDelete", "documentRemove", "filter"])
    }
}
