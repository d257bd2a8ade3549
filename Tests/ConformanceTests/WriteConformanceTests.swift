import FirestoreREST
import FirestoreTestSupport
import Foundation
import Testing

/// The conformance `create-*`, `set-*`, `update-*`, `update-paths-*`, `delete-*` and `get-*` tests
/// (`firestore-rest.md` §3.2), run through the public API on a client whose transport captures the requests.
///
/// For each file: the write is made with `create`, `setData`, `updateData`, `delete` or `getDocument` on a
/// ``DocumentReference``; the captured commit body (plus the database from the URL) must equal the expected
/// CommitRequest semantically (``CommitJSON/normalized(_:)``), the captured GET must name the expected
/// document, and an `isError` test must throw ``FirestoreError`` `.invalidArgument` with nothing sent.
/// Files are discovered by prefix, so a new file in the folder is run without code changes.
@Suite(.timeLimit(.minutes(2))) struct WriteConformanceTests {
    static let prefixes = ["create-", "set-", "update-", "delete-", "get-"]
    static let names = prefixes.flatMap { ConformanceData.names(prefix: $0) }

    /// Each file over each wire: over gRPC the `CommitRequest` (or `GetDocumentRequest`) protobuf the client sent is
    /// decoded field by field (``CommitRequestProtoJSON``) and must mean the same request as the REST body does.
    @Test(arguments: names, LiveFirestore.protocols) func write(_ name: String, wire: FirestoreProtocol) async throws {
        let outcome = try await Self.run(name, wire: wire)
        #expect(outcome.failure == nil, "\(name) over \(wire): \(outcome.failure ?? "")")
    }

    /// Runs every file once more and checks the pass count per kind against the counts in SOURCE.md.
    @Test func passCountsPerKind() async throws {
        var passed: [String: Int] = [:]
        var total: [String: Int] = [:]
        for name in Self.names {
            let outcome = try await Self.run(name)
            total[outcome.kind, default: 0] += 1
            if outcome.failure == nil { passed[outcome.kind, default: 0] += 1 }
        }
        print(
            "write conformance: "
                + Self.kinds.map { "\($0) \(passed[$0] ?? 0)/\(total[$0] ?? 0)" }.joined(separator: ", "))
        #expect(total == ["create": 28, "set": 51, "update": 44, "updatePaths": 45, "delete": 3, "get": 1])
        #expect(passed == ["create": 28, "set": 51, "update": 44, "updatePaths": 45, "delete": 3, "get": 1])
    }

    /// Every `isError` file is refused for its own reason, not by accident: the message names the cause.
    @Test func refusalsNameTheirCause() async throws {
        let inArray = "cannot be used inside an array (field a)"
        let holdsTimestamp = "holds FieldValue.serverTimestamp(); its arguments must be plain values"
        var expected: [String: String] = [
            "set-del-nomerge": "FieldValue.delete() at b is not in mergeFields",
            "set-del-nonleaf": "FieldValue.delete() at h.g is inside merge field h",
            "set-del-wo-merge": "FieldValue.delete() cannot be used at b: only with merge",
            "set-nodel": "FieldValue.delete() cannot be used at b: only with merge",
            "create-nodel": "FieldValue.delete() cannot be used at b: in create",
            "set-merge-prefix": "merge field a is a prefix of a.b",
            "set-merge-present": "merge field b is not in the data",
            "update-badchar": "'~' is not allowed in a dotted path",
            "update-fp-empty-component": "invalid field path \"a..b\": empty segment",
            "update-paths-fp-empty": "a field path needs at least one segment",
            "update-paths-fp-empty-component": "has an empty segment at position 1",
            "update-paths-fp-dup": "field path a is given more than once",
            "update-paths-fp-dup-transforms": "field path a is given more than once",
        ]
        for kind in ["create", "set", "update", "update-paths"] {
            for sentinel in ["arrayremove", "arrayunion", "del", "st"] {
                expected["\(kind)-\(sentinel)-noarray"] = inArray
                expected["\(kind)-\(sentinel)-noarray-nested"] = inArray
            }
            expected["\(kind)-arrayremove-with-st"] = holdsTimestamp
            expected["\(kind)-arrayunion-with-st"] = holdsTimestamp
        }
        for kind in ["update", "update-paths"] {
            expected["\(kind)-del-nested"] = "FieldValue.delete() cannot be used at a.b: nested inside a value"
            expected["\(kind)-exists-false-precond"] = "cannot take the precondition exists: false"
            expected["\(kind)-no-paths"] = "updateData needs at least one field"
            expected["\(kind)-prefix-1"] = "field path a is a prefix of a.b"
            expected["\(kind)-prefix-2"] = "field path a is a prefix of a.b"
            expected["\(kind)-prefix-3"] = "field path a is a prefix of a.d"
        }
        var reasons: [String: String] = [:]
        for name in Self.names {
            let test = try ConformanceData.test(name)
            guard let kind = Self.kinds.first(where: { test[$0] != nil }), let spec = test[kind],
                spec["isError"] == .bool(true)
            else { continue }
            do {
                try await Self.perform(kind, spec: spec, on: try Self.reference(spec, transport: CapturingTransport()))
                reasons[name] = "no error"
            } catch let error as FirestoreError {
                reasons[name] = error.message
            }
        }
        #expect(Set(reasons.keys) == Set(expected.keys))
        for (name, reason) in reasons.sorted(by: { $0.key < $1.key }) {
            #expect(reason.contains(expected[name] ?? "(no expectation)"), "\(name): \(reason)")
        }
        print("write conformance: \(reasons.count) isError files refused before sending")
    }

    // MARK: - Running one file

    /// The test kinds, as the member names of a conformance `Test`.
    static let kinds = ["create", "set", "update", "updatePaths", "delete", "get"]

    struct Outcome {
        var kind: String
        /// `nil` when the test passed, else what differed.
        var failure: String?
    }

    static func run(_ name: String, wire: FirestoreProtocol = .rest) async throws -> Outcome {
        let test = try ConformanceData.test(name)
        guard let kind = kinds.first(where: { test[$0] != nil }), let spec = test[kind]
        else { throw ConformanceData.LoadError(description: "\(name): no write or get test in the file") }
        let transport = CapturingTransport()
        let outcome: Result<Void, any Error>
        do {
            let document = try reference(spec, transport: transport, wire: wire)
            try await perform(kind, spec: spec, on: document)
            outcome = .success(())
        } catch let error as ConformanceData.LoadError {
            throw error
        } catch {
            outcome = .failure(error)
        }
        let requests = transport.requests
        let calls = transport.rpc.calls
        if spec["isError"] == .bool(true) {
            switch outcome {
            case .success:
                return Outcome(kind: kind, failure: "expected an error, but the call succeeded")
            case .failure(let error):
                guard let error = error as? FirestoreError, error.code == .invalidArgument else {
                    return Outcome(kind: kind, failure: "expected FirestoreError invalid-argument, got \(error)")
                }
                guard requests.isEmpty, calls.isEmpty else {
                    return Outcome(
                        kind: kind, failure: "threw \(error) but sent \(requests.count + calls.count) request(s)")
                }
                return Outcome(kind: kind, failure: nil)
            }
        }
        if case .failure(let error) = outcome { return Outcome(kind: kind, failure: "unexpected error: \(error)") }
        var expected = CommitJSON.normalized(spec["request"] ?? .null)
        var actual: JSONValue
        switch wire {
        case .grpc:
            guard requests.isEmpty, calls.count == 1, let call = calls.first else {
                return Outcome(
                    kind: kind, failure: "expected one gRPC call, captured \(calls.count) and \(requests.count) REST")
            }
            expected = CommitRequestProtoJSON.withoutEmptyFieldMaps(expected)
            actual = CommitRequestProtoJSON.withoutEmptyFieldMaps(CommitJSON.normalized(try captured(call, kind: kind)))
        default:
            guard calls.isEmpty, requests.count == 1, let request = requests.first else {
                return Outcome(kind: kind, failure: "expected one request, captured \(requests.count)")
            }
            actual = CommitJSON.normalized(try captured(request, kind: kind))
        }
        guard actual == expected else {
            return Outcome(
                kind: kind,
                failure:
                    "request differs.\nexpected: \(expected.serializedString())\nactual:   \(actual.serializedString())"
            )
        }
        return Outcome(kind: kind, failure: nil)
    }

    /// The request as the conformance file writes it: for get a GetDocumentRequest `{"name": ...}` from the GET
    /// URL; otherwise the commit body plus `database` taken from the commit URL.
    static func captured(_ request: HTTPRequest, kind: String) throws -> JSONValue {
        let resource = CapturingTransport.resourceName(of: request)
        if kind == "get" {
            guard request.method == "GET" else {
                throw ConformanceData.LoadError(description: "get sent \(request.method)")
            }
            return ["name": .string(resource)]
        }
        guard request.method == "POST", resource.hasSuffix("/documents:commit") else {
            throw ConformanceData.LoadError(
                description: "expected POST .../documents:commit, got \(request.method) \(resource)")
        }
        guard case .object(var body) = try JSONValue.parse(request.body ?? Data()) else {
            throw ConformanceData.LoadError(description: "commit body is not an object")
        }
        body["database"] = .string(String(resource.dropLast("/documents:commit".count)))
        return .object(body)
    }

    /// The request a gRPC call carried, in the conformance file's form: `GetDocument`'s `GetDocumentRequest` for get,
    /// else `Commit`'s `CommitRequest`.
    static func captured(_ call: CapturingRPCChannel.Call, kind: String) throws -> JSONValue {
        let method = kind == "get" ? FirestoreGRPCMethod.getDocument : FirestoreGRPCMethod.commit
        guard call.method == method else {
            throw ConformanceData.LoadError(description: "expected a call of \(method), got \(call.method)")
        }
        return kind == "get"
            ? try CommitRequestProtoJSON.getDocument(call.request) : try CommitRequestProtoJSON.commit(call.request)
    }

    /// The document of `docRefPath` on a client whose database is the one the path names, speaking `wire`.
    static func reference(_ spec: JSONValue, transport: CapturingTransport, wire: FirestoreProtocol = .rest) throws
        -> DocumentReference
    {
        guard let name = spec["docRefPath"]?.stringValue else {
            throw ConformanceData.LoadError(description: "no docRefPath")
        }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count > 5, parts[0] == "projects", parts[2] == "databases", parts[4] == "documents" else {
            throw ConformanceData.LoadError(description: "unexpected docRefPath \(name)")
        }
        let database = try DatabaseID(projectID: parts[1], databaseID: parts[3])
        let firestore = Firestore(
            database: database, baseURL: CapturingTransport.baseURL,
            credentials: NoCredentials(), transport: transport, isEmulator: false
        ).using(protocol: wire)
        return firestore.document(parts[5...].joined(separator: "/"))
    }

    /// Makes the call the test describes, through the public API.
    static func perform(_ kind: String, spec: JSONValue, on document: DocumentReference) async throws {
        let precondition = try spec["precondition"].map(WriteConformanceInput.precondition)
        switch kind {
        case "get":
            _ = try await document.getDocument()
        case "delete":
            try await document.delete(precondition: precondition)
        case "create":
            try await document.create(try WriteConformanceInput.data(spec))
        case "set":
            let data = try WriteConformanceInput.data(spec)
            if let option = spec["option"] {
                if option["all"] == .bool(true) {
                    try await document.setData(data, merge: true)
                } else {
                    let fields = try (option["fields"]?.arrayValue ?? []).map(WriteConformanceInput.fieldPath)
                    try await document.setData(data, mergeFields: fields)
                }
            } else {
                try await document.setData(data)
            }
        case "update":
            try await document.updateData(try WriteConformanceInput.data(spec), precondition: precondition)
        case "updatePaths":
            let paths = try (spec["fieldPaths"]?.arrayValue ?? []).map(WriteConformanceInput.fieldPath)
            let values = try (spec["jsonValues"]?.arrayValue ?? []).map { json -> FieldValue in
                guard case .string(let text) = json else {
                    throw ConformanceData.LoadError(description: "jsonValues holds a \(json.typeName)")
                }
                return WriteConformanceInput.writeValue(try JSONValue.parse(text))
            }
            guard paths.count == values.count else {
                throw ConformanceData.LoadError(description: "\(paths.count) fieldPaths but \(values.count) jsonValues")
            }
            try await document.updateData(pathsAndValues: Array(zip(paths, values)), precondition: precondition)
        default:
            throw ConformanceData.LoadError(description: "unknown kind \(kind)")
        }
    }
}

/// The update-paths tests again through the dictionary form `updateData(fields:)`, where a dictionary can
/// hold them (no repeated path): the same request must come out.
@Suite(.timeLimit(.minutes(2))) struct UpdatePathsDictionaryFormTests {
    static let names = ConformanceData.names(prefix: "update-paths-")

    @Test(arguments: names) func dictionaryFormMatchesPairs(_ name: String) async throws {
        let spec = try #require(try ConformanceData.test(name)["updatePaths"])
        let paths: [FieldPath]
        do {
            paths = try (spec["fieldPaths"]?.arrayValue ?? []).map(WriteConformanceInput.fieldPath)
        } catch is FirestoreError {
            return  // an invalid path: no dictionary can be built
        }
        guard Set(paths).count == paths.count else { return }
        let values = try (spec["jsonValues"]?.arrayValue ?? []).map { json in
            WriteConformanceInput.writeValue(try JSONValue.parse(json.stringValue ?? ""))
        }
        let precondition = try spec["precondition"].map(WriteConformanceInput.precondition)
        let pairs = await Self.outcome { document in
            try await document.updateData(pathsAndValues: Array(zip(paths, values)), precondition: precondition)
        }
        let dictionary = await Self.outcome { document in
            try await document.updateData(
                fields: Dictionary(uniqueKeysWithValues: zip(paths, values)), precondition: precondition)
        }
        #expect(pairs.succeeded == dictionary.succeeded)
        #expect(pairs.bodies == dictionary.bodies)
    }

    /// Whether `call` succeeded on the test's document, and the parsed bodies it sent.
    static func outcome(_ call: (DocumentReference) async throws -> Void) async
        -> (succeeded: Bool, bodies: [JSONValue?])
    {
        let transport = CapturingTransport()
        let succeeded: Bool
        do {
            let database = try DatabaseID(projectID: "projectID")
            let firestore = Firestore(
                database: database, baseURL: CapturingTransport.baseURL,
                credentials: NoCredentials(), transport: transport, isEmulator: false)
            try await call(firestore.document("C/d"))
            succeeded = true
        } catch {
            succeeded = false
        }
        return (succeeded, transport.requests.map { try? JSONValue.parse($0.body ?? Data()) })
    }
}
