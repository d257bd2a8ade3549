import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The [DEC] field cases of `field-cases.md`: C-12, C-13, C-14, C-15, C-18, C-19, C-21.
@Suite(.timeLimit(.minutes(2))) struct CodableFieldCaseTests {
    struct U: Codable, Equatable { var name: String }

    /// `runQuery` rows of C-12: `u1 {name: "Ann"}`, `u2 {name: 7}`.
    static let c12Rows = #"""
        [{"document":{"name":"projects/p/databases/(default)/documents/users/u1","fields":{"name":{"stringValue":"Ann"}},
          "createTime":"2024-01-01T00:00:00Z","updateTime":"2024-01-01T00:00:00Z"},"readTime":"2024-01-01T00:00:01Z"},
         {"document":{"name":"projects/p/databases/(default)/documents/users/u2","fields":{"name":{"integerValue":"7"}},
          "createTime":"2024-01-01T00:00:00Z","updateTime":"2024-01-01T00:00:00Z"},"readTime":"2024-01-01T00:00:01Z"}]
        """#

    private func c12Snapshot() throws -> QuerySnapshot {
        let db = try offlineFirestore()
        let response = try Firestore.decodeRunQuery(json(Self.c12Rows))
        let documents = response.documents.map { DocumentSnapshot(firestore: db, document: $0) }
        return QuerySnapshot(
            query: db.collection("users").query, documents: documents, documentChanges: [], readTime: nil)
    }

    // MARK: C-12

    @Test func c12IgnoreKeepsTheDecodableDocumentsAndListsTheFailure() throws {
        let decoded = try c12Snapshot().documents(as: U.self, strategy: .ignore)
        #expect(decoded.values == [U(name: "Ann")])
        #expect(decoded.failures.count == 1)
        let failure = try #require(decoded.failures.first)
        #expect(failure.documentPath == "users/u2")
        #expect(failure.description == "users/u2: name: expected String, found integerValue")
        #expect(codingPath(failure.error) == ["name"])
    }

    @Test func c12RaiseThrowsTheFailureAndNoPartialList() throws {
        let snapshot = try c12Snapshot()
        var partial: DecodedDocuments<U>?
        do {
            partial = try snapshot.documents(as: U.self, strategy: .raise)
            Issue.record("expected the decoding failure to be thrown")
        } catch {
            // The failure prints short (issue 17: not "DecodingError.typeMismatch: ... Debug description: ...");
            // the DecodingError with its coding path is inside.
            #expect("\(error)" == "users/u2: name: expected String, found integerValue")
            let failure = try #require(error as? DocumentDecodingFailure)
            #expect(codingMessage(failure.error) == "users/u2: name: expected String, found integerValue")
            #expect(codingPath(failure.error) == ["name"])
            guard case DecodingError.typeMismatch = failure.error else {
                Issue.record("expected typeMismatch, got \(failure.error)")
                return
            }
        }
        #expect(partial == nil)
        // The same through a Result, the shape `FirestoreQuery<Result<[U], Error>>` publishes (observation O-1).
        let result = Result { try snapshot.documents(as: U.self, strategy: .raise).values }
        guard case .failure(let error) = result else {
            Issue.record("expected .failure, got \(result)")
            return
        }
        #expect("\(error)" == "users/u2: name: expected String, found integerValue")
        // The default strategy is `.raise`, as in the SDK.
        let byDefault = thrownError { try snapshot.documents(as: U.self) }
        #expect(byDefault.map { "\($0)" } == "users/u2: name: expected String, found integerValue")
    }

    @Test func c12ThroughGetDocumentsOverTheTransport() async throws {
        let rows = try json(Self.c12Rows)
        let transport = ScriptedTransport { _, _ in .ok(rows) }
        let db = try transport.firestore()
        let decoded = try await db.collection("users").getDocuments(as: U.self, strategy: .ignore)
        #expect(decoded.values == [U(name: "Ann")])
        #expect(decoded.failures.map(\.description) == ["users/u2: name: expected String, found integerValue"])
        let raised = await #expect(throws: DocumentDecodingFailure.self) {
            try await db.collection("users").getDocuments(as: U.self)
        }
        #expect(raised?.description == "users/u2: name: expected String, found integerValue")
    }

    // MARK: C-13

    @Test func c13MissingDocumentIsNilForAnOptionalAndNotFoundOtherwise() throws {
        let db = try offlineFirestore()
        let missing = DocumentSnapshot(reference: db.document("users/nobody"), document: nil)
        #expect(try missing.data(as: U?.self) == nil)
        let error = thrownError { try missing.data(as: U.self) }
        #expect(
            error as? FirestoreError
                == FirestoreError(code: .notFound, message: "users/nobody: document does not exist"))
        // An existing document decodes into the optional type as a value.
        let present = DocumentSnapshot(
            reference: db.document("users/ann"),
            document: Document(name: resourceName("users/ann"), fields: ["name": "Ann"]))
        #expect(try present.data(as: U?.self) == U(name: "Ann"))
    }

    @Test func c13GetDocumentAsOverA404() async throws {
        let transport = ScriptedTransport { _, _ in
            .error(404, "NOT_FOUND", "Document \"projects/p/databases/(default)/documents/users/nobody\" not found.")
        }
        let reference = try transport.firestore().document("users/nobody")
        #expect(try await reference.getDocument(as: U?.self) == nil)
        do {
            _ = try await reference.getDocument(as: U.self)
            Issue.record("expected not-found")
        } catch let error as FirestoreError {
            #expect(error.code == .notFound)
            #expect(error.message == "users/nobody: document does not exist")
        }
    }

    @Test func c13BatchGetMissingRow() throws {
        let db = try offlineFirestore()
        let response = try Firestore.decodeBatchGet(
            json(
                #"[{"missing":"projects/p/databases/(default)/documents/users/nobody","readTime":"2024-01-01T00:00:00Z"}]"#
            ))
        #expect(response.missing == ["projects/p/databases/(default)/documents/users/nobody"])
        let snapshot = DocumentSnapshot(
            reference: db.document(try db.database.path(ofResourceName: response.missing[0]).description), document: nil
        )
        #expect(try snapshot.data(as: U?.self) == nil)
        let error = thrownError { try snapshot.data(as: U.self) }
        #expect((error as? FirestoreError)?.code == .notFound)
    }

    // MARK: C-14

    struct P: Codable, Equatable {
        var title: String
        @ServerTimestamp var updatedAt: Date?
    }

    @Test func c14AbsentOrNullServerTimestampIsNil() throws {
        let absent = try Document(
            restJSON: json(
                #"{"name":"projects/p/databases/(default)/documents/posts/p1","fields":{"title":{"stringValue":"t"}}}"#)
        )
        #expect(try FirestoreDecoder().decode(P.self, from: absent) == P(title: "t", updatedAt: nil))
        let null = try Document(
            restJSON: json(
                #"{"name":"projects/p/databases/(default)/documents/posts/p1","fields":{"title":{"stringValue":"t"},"updatedAt":{"nullValue":null}}}"#
            ))
        #expect(try FirestoreDecoder().decode(P.self, from: null) == P(title: "t", updatedAt: nil))
        // The same rule with any decoder: the KeyedDecodingContainer overload.
        #expect(try JSONDecoder().decode(P.self, from: Data(#"{"title":"t"}"#.utf8)) == P(title: "t", updatedAt: nil))
    }

    // MARK: C-15

    struct Obj: Codable, Equatable {
        var value: String
        var date: Date?
    }

    struct ExplicitObj: Codable, Equatable {
        var value: String
        @ExplicitNull var date: Date?
    }

    @Test func c15NullStrategyPutsTheNilFieldInTheMergeMask() throws {
        var encoder = FirestoreEncoder()
        encoder.nilEncodingStrategy = .null
        let data = try encoder.encodeForWrite(Obj(value: "b", date: nil))
        #expect(data == ["value": "b", "date": nil])
        let write = try WriteEncoder.set(data, at: ResourcePath("objs/o1"), merge: .mergeAll)
        let expected = try json(
            #"""
            {"update":{"name":"projects/p/databases/(default)/documents/objs/o1",
                       "fields":{"value":{"stringValue":"b"},"date":{"nullValue":null}}},
             "updateMask":{"fieldPaths":["date","value"]}}
            """#)
        #expect(write.restJSON(database: try DatabaseID(projectID: "p")) == expected)
        // @ExplicitNull does the same for one property.
        #expect(
            try FirestoreEncoder().encodeForWrite(ExplicitObj(value: "b", date: nil)) == ["value": "b", "date": nil])
        // The default leaves the field out, so a merge does not touch it (the documented SDK behaviour).
        let omitted = try FirestoreEncoder().encodeForWrite(Obj(value: "b", date: nil))
        #expect(omitted == ["value": "b"])
    }

    @Test func c15AbsentAndNullDecodeAsNilForOptionals() throws {
        for fields: [String: FirestoreValue] in [["value": "b"], ["value": "b", "date": .null]] {
            #expect(try FirestoreDecoder().decode(Obj.self, from: fields) == Obj(value: "b", date: nil))
            #expect(try FirestoreDecoder().decode(ExplicitObj.self, from: fields) == ExplicitObj(value: "b", date: nil))
        }
    }

    // MARK: C-18

    @Test func c18SpecialDoublesDecodeAndEncodeBackToTheSameStrings() throws {
        struct Model: Codable {
            var x: Double
            var y: Double
            var z: Double
        }
        let wire = try json(#"{"x":{"doubleValue":"NaN"},"y":{"doubleValue":"-Infinity"},"z":{"doubleValue":1e308}}"#)
        let fields = try FirestoreValue.decodeFields(try #require(wire.objectValue))
        let model = try FirestoreDecoder().decode(Model.self, from: fields)
        #expect(model.x.isNaN)
        #expect(model.y == -.infinity)
        #expect(model.z == 1e308)
        let back = FirestoreValue.encodeFields(try FirestoreEncoder().encode(model))
        #expect(back == wire)
        #expect(back["x"]?["doubleValue"] == .string("NaN"))
        #expect(back["y"]?["doubleValue"] == .string("-Infinity"))
    }

    // MARK: C-19

    @Test func c19SixtyFourBitIntegersAreExact() throws {
        struct Wide: Codable, Equatable {
            var n: Int64
            var m: Int64
            var k: Int64
        }
        struct Narrow: Codable { var k: Int32 }
        let wire = try json(
            #"{"n":{"integerValue":"9223372036854775807"},"m":{"integerValue":"5248794116772919364"},"k":{"integerValue":"4294967296"}}"#
        )
        let fields = try FirestoreValue.decodeFields(try #require(wire.objectValue))
        #expect(
            try FirestoreDecoder().decode(Wide.self, from: fields)
                == Wide(n: 9_223_372_036_854_775_807, m: 5_248_794_116_772_919_364, k: 4_294_967_296))
        let overflow = thrownError { try FirestoreDecoder().decode(Narrow.self, from: fields) }
        #expect(overflow.map(codingMessage) == "k: 4294967296 is out of range for Int32")
        let encoded = FirestoreValue.encodeFields(try FirestoreEncoder().encode(Wide(n: .max, m: 1, k: 2)))
        #expect(encoded["n"] == .object(["integerValue": .string("9223372036854775807")]))
        // A cursor built from these values keeps full precision.
        let query = try offlineFirestore().collection("c").order(by: "n").start(at: [Int64.max])
        #expect(
            try query.structuredQuery()["startAt"]
                == json(#"{"values":[{"integerValue":"9223372036854775807"}],"before":true}"#))
    }

    // MARK: C-21

    @Test func c21EmptyContainersAndEmptyDocuments() throws {
        struct Tagged: Codable, Equatable {
            var tags: [String]
            var meta: [String: String]
        }
        let wire = try json(#"{"tags":{"arrayValue":{}},"meta":{"mapValue":{}}}"#)
        let fields = try FirestoreValue.decodeFields(try #require(wire.objectValue))
        #expect(try FirestoreDecoder().decode(Tagged.self, from: fields) == Tagged(tags: [], meta: [:]))

        struct AllOptional: Codable, Equatable {
            var title: String?
            var tags: [String]?
        }
        struct Required: Codable { var title: String }
        let empty = try Document(
            restJSON: json(
                #"{"name":"projects/p/databases/(default)/documents/c/d1","createTime":"2024-01-01T00:00:00Z","updateTime":"2024-01-01T00:00:00Z"}"#
            ))
        #expect(try FirestoreDecoder().decode(AllOptional.self, from: empty) == AllOptional(title: nil, tags: nil))
        let error = thrownError { try FirestoreDecoder().decode(Required.self, from: empty) }
        #expect(error.map(codingMessage) == "c/d1: title: required field is missing")
        guard case DecodingError.keyNotFound? = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
            return
        }
    }
}
