import FirestoreTestSupport
import Foundation
import Testing

@testable import FirestoreREST

/// The conformance `query-*.json` tests: each test's clauses are applied with the public builder API, in
/// order, and the resulting StructuredQuery must equal the expected `query` (proto3 JSON semantics), or
/// encoding must throw for `isError`. Files are discovered by prefix, so a new file is picked up as is.
@Suite(.timeLimit(.minutes(2))) struct QueryConformanceTests {
    static let names = ConformanceData.names(prefix: "query-")

    @Test func fortyTwoQueryTests() {
        #expect(Self.names.count == 42)
    }

    enum Outcome: Equatable {
        case query(JSONValue)
        case refused(String)
    }

    /// Each test for each wire: over gRPC the StructuredQuery is encoded as protobuf (`StructuredQueryProtobuf`) and
    /// decoded back, so the same request, encoded as JSON and as protobuf, must mean the same query.
    @Test(arguments: names, LiveFirestore.protocols) func query(_ name: String, wire: FirestoreProtocol) throws {
        let test = try ConformanceData.test(name)
        let spec = try #require(test["query"])
        var outcome = try Self.run(spec)
        if wire == .grpc, case .query = outcome {
            // The protobuf printer of the wire model, checked against the JSON translation written a second way.
            let structured = try Self.query(spec).structured()
            let bytes = try structured.protobuf()
            #expect(
                bytes == (try StructuredQueryProtobuf.encode(structured.restJSON)),
                "\(name): StructuredQuery.protobuf() differs from the translation of its REST JSON")
            outcome = .query(try StructuredQueryProtobuf.decode(bytes))
        }
        if spec["isError"] == .bool(true) {
            guard case .refused = outcome else {
                Issue.record("\(name): expected an error, got \(outcome)")
                return
            }
        } else {
            let expected = try #require(spec["query"])
            guard case .query(let actual) = outcome else {
                Issue.record("\(name): unexpected error \(outcome)")
                return
            }
            #expect(
                ProtoJSON.equal(actual, expected),
                "\(name):\n\(actual.serializedString())\n\(expected.serializedString())")
        }
    }

    static let db: Firestore = {
        guard let database = try? DatabaseID(projectID: "projectID") else { preconditionFailure("static ID") }
        let refused = FirestoreError(code: .failedPrecondition, message: "conformance tests send nothing")
        return Firestore(
            database: database, baseURL: "http://127.0.0.1:1", credentials: NoCredentials(),
            transport: NoNetworkTransport(refused), isEmulator: true)
    }()

    /// The query the clauses build.
    static func query(_ spec: JSONValue) throws -> Query {
        let prefix = db.database.documentsRoot + "/"
        let collPath = spec["collPath"]?.stringValue ?? ""
        var query = db.collection(String(collPath.dropFirst(prefix.count))).query
        for clause in spec["clauses"]?.arrayValue ?? [] {
            query = try apply(clause, to: query)
        }
        return query
    }

    /// Applies the clauses and encodes; any error (from the builder inputs or from encoding) is a refusal.
    static func run(_ spec: JSONValue) throws -> Outcome {
        do {
            return .query(try query(spec).structuredQuery())
        } catch let error as FirestoreError {
            return .refused(error.message)
        } catch let sentinel as ConformanceValues.SentinelFound {
            // Query values are `FirestoreValueConvertible`; no write sentinel conforms, so the API cannot
            // even express this query. WriteSentinelTypingTests pins that at run time.
            return .refused(sentinel.description)
        }
    }

    static func fieldPath(_ json: JSONValue?) throws -> FieldPath {
        try FieldPath((json?["field"]?.arrayValue ?? []).compactMap(\.stringValue))
    }

    static func apply(_ clause: JSONValue, to query: Query) throws -> Query {
        guard case .object(let members) = clause, let (kind, body) = members.first else { return query }
        switch kind {
        case "select":
            return query.select(fields: try (body["fields"]?.arrayValue ?? []).map { try fieldPath($0) })
        case "where":
            let field = try fieldPath(body["path"])
            let symbol = body["op"]?.stringValue ?? ""
            guard let op = FilterOperator(symbol: symbol) else {
                throw FirestoreError.invalidArgument("invalid operator \(symbol)")
            }
            return query.whereField(field, op, try ConformanceValues.value(text: body["jsonValue"]?.stringValue ?? ""))
        case "orderBy":
            return query.order(by: try fieldPath(body["path"]), descending: body["direction"]?.stringValue == "desc")
        case "offset":
            guard case .integer(let count) = body else { return query }
            return query.offset(Int(count))
        case "limit":
            guard case .integer(let count) = body else { return query }
            return query.limit(to: Int(count))
        case "startAt", "startAfter", "endAt", "endBefore":
            if let snapshot = body["docSnapshot"] {
                let document = Document(
                    name: snapshot["path"]?.stringValue ?? "",
                    fields: try ConformanceValues.value(text: snapshot["jsonData"]?.stringValue ?? "{}").mapValue)
                let documentSnapshot = DocumentSnapshot(firestore: db, document: document)
                switch kind {
                case "startAt": return query.start(atDocument: documentSnapshot)
                case "startAfter": return query.start(afterDocument: documentSnapshot)
                case "endAt": return query.end(atDocument: documentSnapshot)
                default: return query.end(beforeDocument: documentSnapshot)
                }
            }
            let values = try (body["jsonValues"]?.arrayValue ?? []).map {
                try ConformanceValues.value(text: $0.stringValue ?? "")
            }
            switch kind {
            case "startAt": return query.start(at: values)
            case "startAfter": return query.start(after: values)
            case "endAt": return query.end(at: values)
            default: return query.end(before: values)
            }
        default:
            Issue.record("unknown clause \(kind)")
            return query
        }
    }
}

extension FirestoreValue {
    /// The fields of a map value (empty for any other value).
    var mapValue: [String: FirestoreValue] {
        if case .map(let fields) = self { return fields }
        return [:]
    }
}

extension QueryConformanceTests {
    /// Every isError query test is refused for its own reason, not by accident.
    @Test func refusalsNameTheirCause() throws {
        var reasons: [String: String] = [:]
        for name in Self.names {
            let spec = try #require(try ConformanceData.test(name)["query"])
            if case .refused(let reason) = try Self.run(spec) { reasons[name] = reason }
        }
        #expect(
            reasons == [
                "query-arrayremove-cursor": "sentinel ArrayRemove",
                "query-arrayremove-where": "sentinel ArrayRemove",
                "query-arrayunion-cursor": "sentinel ArrayUnion",
                "query-arrayunion-where": "sentinel ArrayUnion",
                "query-bad-NaN": "invalid filter a < NaN: NaN only supports == and !=",
                "query-bad-null": "invalid filter a > null: null only supports == and !=",
                "query-cursor-endbefore-empty": "the end cursor needs at least one value",
                "query-cursor-no-order": "the start cursor with values needs at least one order(by:)",
                "query-cursor-startat-empty": "the start cursor needs at least one value",
                "query-del-cursor": "sentinel Delete",
                "query-del-where": "sentinel Delete",
                "query-invalid-operator": "invalid operator |~|",
                "query-invalid-path-order": "field path [\"*\", \"\"] has an empty segment at position 1",
                "query-invalid-path-select": "field path [\"*\", \"\"] has an empty segment at position 1",
                "query-invalid-path-where": "field path [\"*\", \"\"] has an empty segment at position 1",
                "query-st-cursor": "sentinel ServerTimestamp",
                "query-st-where": "sentinel ServerTimestamp",
                "query-wrong-collection":
                    "the end cursor's document C2/D is not in the queried collection C",
            ])
        print(
            "conformance query: \(Self.names.count - reasons.count) encoded, \(reasons.count) refused, of \(Self.names.count)"
        )
    }
}
