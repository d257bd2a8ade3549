import FirestoreREST
import Foundation
import Synchronization

/// An in-memory Firestore for one collection (`items` under project `p`) that keeps every version of every
/// document with its commit time, so reads at a `readTime` see exactly what a server would: runQuery (field
/// filters, AND, orders with the server's implicit ones, cursors, offset, limit, `select: [__name__]`),
/// batchGet and a `count` aggregation, each now or at a `readTime`. Writes are made by the test with a request
/// time (what `REQUEST_TIME` writes into the tracking field, to the millisecond, as the emulator stores it) and
/// a later commit time: a write is invisible to reads before its commit time, which is how "the field's time
/// precedes the previous poll's readTime but the commit follows it" is staged. It refuses an inequality field
/// after an explicit `__name__` order, as the emulator does ("order by clause cannot contain more fields after
/// the key").
final class VersionedFirestore: HTTPTransport {
    static let root = "projects/p/databases/(default)/documents"

    private struct Version {
        let commitTime: Timestamp
        let fields: [String: FirestoreValue]?
    }

    private struct State {
        var now: Timestamp
        var versions: [String: [Version]] = [:]
        var requests: [String] = []
    }

    private let state: Mutex<State>
    /// The tracking field writes set to their request time.
    let trackingField: String

    init(now: Timestamp, trackingField: String = "updatedAt") {
        state = Mutex(State(now: now))
        self.trackingField = trackingField
    }

    /// The server's current time: reads without a `readTime` are answered as of it.
    var now: Timestamp {
        get { state.withLock { $0.now } }
        set { state.withLock { $0.now = newValue } }
    }

    /// The verbs of the requests answered, in order (`runQuery`, `batchGet`, `runAggregationQuery`).
    var requests: [String] { state.withLock { $0.requests } }

    /// A client for this server.
    func firestore() throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: "p"), baseURL: "http://versioned.invalid/v1/",
            credentials: NoCredentials(), transport: self, isEmulator: false)
    }

    // MARK: Writes

    /// Writes `fields` (plus the tracking field at `requestTime`, cut to milliseconds, unless `stamped` is false)
    /// to `items/id`, committed at `commitTime`.
    func write(
        _ id: String, _ fields: [String: FirestoreValue], requestTime: Timestamp, commitTime: Timestamp,
        stamped: Bool = true
    ) {
        var all = fields
        if stamped {
            let millis = (Int64(requestTime.nanos) / 1_000_000) * 1_000_000
            all[trackingField] = .timestamp(
                (try? Timestamp(seconds: requestTime.seconds, nanos: Int32(millis))) ?? requestTime)
        }
        add(Version(commitTime: commitTime, fields: all), to: id)
    }

    /// Deletes `items/id` at `commitTime`.
    func delete(_ id: String, commitTime: Timestamp) { add(Version(commitTime: commitTime, fields: nil), to: id) }

    private func add(_ version: Version, to id: String) {
        state.withLock { state in
            state.versions[Self.root + "/items/" + id, default: []].append(version)
            state.versions[Self.root + "/items/" + id]?.sort { $0.commitTime < $1.commitTime }
        }
    }

    /// The documents existing at `time`, by name, with their times.
    func documents(at time: Timestamp) -> [Document] {
        state.withLock { state in
            state.versions.compactMap { name, versions in Self.document(name, versions, at: time) }
        }
    }

    private static func document(_ name: String, _ versions: [Version], at time: Timestamp) -> Document? {
        let visible = versions.filter { $0.commitTime <= time }
        guard let last = visible.last, let fields = last.fields else { return nil }
        // The creation is the first version after the last delete (or the first of all).
        let lastDelete = visible.lastIndex { $0.fields == nil }
        let created = visible[(lastDelete.map { $0 + 1 } ?? 0)...].first?.commitTime
        return Document(name: name, fields: fields, createTime: created, updateTime: last.commitTime)
    }

    // MARK: HTTP

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        guard let body = request.body, let json = try? JSONValue.parse(body),
            let verb = request.url.split(separator: ":").last.map(String.init)
        else { return Self.error(400, "no JSON body") }
        state.withLock { $0.requests.append(verb) }
        let readTime: Timestamp
        if let text = json["readTime"]?.stringValue {
            guard let time = try? Timestamp(rfc3339: text) else { return Self.error(400, "bad readTime") }
            readTime = time
        } else {
            readTime = now
        }
        do {
            switch verb {
            case "runQuery":
                guard let query = json["structuredQuery"] else { return Self.error(400, "no structuredQuery") }
                let rows = try run(query, at: readTime)
                return Self.ok(
                    rows.map { ["document": $0.restJSON(), "readTime": .string(readTime.rfc3339)] }, readTime)
            case "runAggregationQuery":
                guard let aggregation = json["structuredAggregationQuery"], let query = aggregation["structuredQuery"],
                    let alias = aggregation["aggregations"]?.arrayValue?.first?["alias"]?.stringValue
                else { return Self.error(400, "no structuredAggregationQuery") }
                let count = try run(query, at: readTime, ordered: false).count
                let row: JSONValue = [
                    "result": ["aggregateFields": .object([alias: ["integerValue": .string(String(count))]])],
                    "readTime": .string(readTime.rfc3339),
                ]
                return HTTPResponse(status: 200, body: JSONValue.array([row]).serialized())
            case "batchGet":
                let existing = Dictionary(
                    documents(at: readTime).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
                let rows: [JSONValue] = (json["documents"]?.arrayValue ?? []).compactMap(\.stringValue).map { name in
                    if let document = existing[name] {
                        return ["found": document.restJSON(), "readTime": .string(readTime.rfc3339)]
                    }
                    return ["missing": .string(name), "readTime": .string(readTime.rfc3339)]
                }
                return HTTPResponse(status: 200, body: JSONValue.array(rows).serialized())
            default:
                return Self.error(400, "unknown method \(verb)")
            }
        } catch let error as QueryError {
            return Self.error(400, error.message)
        } catch {
            throw FirestoreError(wrapping: error)
        }
    }

    struct QueryError: Error { let message: String }

    /// The rows of `query` at `time`, in the server's order (or any order when `ordered` is false and nothing but
    /// their number matters).
    private func run(_ query: JSONValue, at time: Timestamp, ordered: Bool = true) throws -> [Document] {
        guard query["from"]?.arrayValue?.first?["collectionId"] == "items" else {
            throw QueryError(message: "only the collection items is served")
        }
        let filter = query["where"]
        var orders: [(FieldPath, Bool)] = try (query["orderBy"]?.arrayValue ?? []).map { order in
            guard let path = order["field"]?["fieldPath"]?.stringValue else {
                throw QueryError(message: "order without field")
            }
            return (try FieldPath(quoted: path), order["direction"] == "DESCENDING")
        }
        let inequalities = try Self.inequalityFields(filter).sorted {
            $0.segments.lexicographicallyPrecedes($1.segments)
        }
        let lastDescending = orders.last?.1 ?? false
        let hasName = orders.contains { $0.0.isDocumentID }
        for field in inequalities where !orders.contains(where: { $0.0 == field }) {
            if hasName { throw QueryError(message: "order by clause cannot contain more fields after the key") }
            orders.append((field, lastDescending))
        }
        if !hasName { orders.append((.documentID, lastDescending)) }
        var rows = try documents(at: time).filter { document in
            try orders.allSatisfy { $0.0.isDocumentID || document.value(at: $0.0) != nil }
                && Self.matches(document, filter)
        }
        let needsOrder = ordered || ["startAt", "endAt", "offset", "limit"].contains { query[$0] != nil }
        if needsOrder { rows.sort { Self.compare($0, $1, orders) < 0 } }
        if let start = query["startAt"] {
            let values = try Self.values(start)
            let before = start["before"] == .bool(true)
            rows = rows.filter { document in
                let position = Self.compare(document, values, orders)
                return before ? position >= 0 : position > 0
            }
        }
        if let end = query["endAt"] {
            let values = try Self.values(end)
            let before = end["before"] == .bool(true)
            rows = rows.filter { document in
                let position = Self.compare(document, values, orders)
                return before ? position < 0 : position <= 0
            }
        }
        if case .integer(let offset)? = query["offset"] { rows = Array(rows.dropFirst(Int(offset))) }
        if case .integer(let limit)? = query["limit"] { rows = Array(rows.prefix(Int(limit))) }
        if let fields = query["select"]?["fields"]?.arrayValue {
            let paths = fields.compactMap { $0["fieldPath"]?.stringValue }
            rows = rows.map { document in
                var projected = document
                projected.fields = paths == ["__name__"] ? [:] : document.fields.filter { paths.contains($0.key) }
                return projected
            }
        }
        return rows
    }

    private static func inequalityFields(_ filter: JSONValue?) throws -> [FieldPath] {
        guard let filter else { return [] }
        if let composite = filter["compositeFilter"] {
            return try (composite["filters"]?.arrayValue ?? []).flatMap { try inequalityFields($0) }
        }
        guard let field = filter["fieldFilter"], let op = field["op"]?.stringValue,
            let path = field["field"]?["fieldPath"]?.stringValue
        else { throw QueryError(message: "unsupported filter \(filter.serializedString())") }
        return ["EQUAL", "ARRAY_CONTAINS", "IN", "ARRAY_CONTAINS_ANY"].contains(op) ? [] : [try FieldPath(quoted: path)]
    }

    private static func matches(_ document: Document, _ filter: JSONValue?) throws -> Bool {
        guard let filter else { return true }
        if let composite = filter["compositeFilter"] {
            guard composite["op"] == "AND" else { throw QueryError(message: "only AND composites") }
            return try (composite["filters"]?.arrayValue ?? []).allSatisfy { try matches(document, $0) }
        }
        guard let field = filter["fieldFilter"], let op = field["op"]?.stringValue,
            let path = field["field"]?["fieldPath"]?.stringValue, let operandJSON = field["value"]
        else { throw QueryError(message: "unsupported filter") }
        let operand = try FirestoreValue(restJSON: operandJSON)
        let fieldPath = try FieldPath(quoted: path)
        let own = fieldPath.isDocumentID ? FirestoreValue.reference(document.name) : document.value(at: fieldPath)
        guard let own else { return false }
        let comparable = kind(own) == kind(operand)
        let order = FirestoreValue.compare(own, operand)
        switch op {
        case "EQUAL": return order == 0 && comparable
        case "NOT_EQUAL": return !(order == 0 && comparable)
        case "LESS_THAN": return comparable && order < 0
        case "LESS_THAN_OR_EQUAL": return comparable && order <= 0
        case "GREATER_THAN": return comparable && order > 0
        case "GREATER_THAN_OR_EQUAL": return comparable && order >= 0
        default: throw QueryError(message: "unsupported operator \(op)")
        }
    }

    /// The type class range filters compare within (numbers together).
    private static func kind(_ value: FirestoreValue) -> String {
        switch value {
        case .integer, .double: return "number"
        case .timestamp: return "timestamp"
        case .string: return "string"
        case .reference: return "reference"
        case .boolean: return "boolean"
        default: return "other"
        }
    }

    private static func values(_ cursor: JSONValue) throws -> [FirestoreValue] {
        try (cursor["values"]?.arrayValue ?? []).map { try FirestoreValue(restJSON: $0) }
    }

    private static func value(_ document: Document, _ field: FieldPath) -> FirestoreValue? {
        field.isDocumentID ? .reference(document.name) : document.value(at: field)
    }

    private static func compare(_ lhs: Document, _ rhs: Document, _ orders: [(FieldPath, Bool)]) -> Int {
        for (field, descending) in orders {
            guard let a = value(lhs, field), let b = value(rhs, field) else { continue }
            let result = FirestoreValue.compare(a, b)
            if result != 0 { return descending ? -result : result }
        }
        return 0
    }

    private static func compare(_ document: Document, _ values: [FirestoreValue], _ orders: [(FieldPath, Bool)]) -> Int
    {
        for ((field, descending), value) in zip(orders, values) {
            guard let own = Self.value(document, field) else { return -1 }
            let result = FirestoreValue.compare(own, value)
            if result != 0 { return descending ? -result : result }
        }
        return 0
    }

    private static func ok(_ rows: [JSONValue], _ readTime: Timestamp) -> HTTPResponse {
        let body: JSONValue = rows.isEmpty ? [["readTime": .string(readTime.rfc3339), "done": true]] : .array(rows)
        return HTTPResponse(status: 200, body: body.serialized())
    }

    private static func error(_ status: Int, _ message: String) -> HTTPResponse {
        let body: JSONValue = [
            "error": ["code": .integer(Int64(status)), "message": .string(message), "status": "INVALID_ARGUMENT"]
        ]
        return HTTPResponse(status: status, body: body.serialized())
    }
}
