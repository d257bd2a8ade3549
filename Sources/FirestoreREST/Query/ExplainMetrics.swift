import FirestoreWire

/// How the server planned and, with ``ExplainOptions/analyze``, ran a query (REST reference: `ExplainMetrics`; Node
/// `ExplainMetrics`, Python `ExplainMetrics`).
public struct ExplainMetrics: Sendable, Hashable {
    /// The planning phase: the indexes the query uses.
    public let planSummary: PlanSummary
    /// The execution: results, time and billable reads; `nil` unless the query ran (``ExplainOptions/analyze``).
    public let executionStats: ExecutionStats?

    /// Metrics from their parts.
    public init(planSummary: PlanSummary, executionStats: ExecutionStats?) {
        self.planSummary = planSummary
        self.executionStats = executionStats
    }

    /// Decodes a REST `ExplainMetrics` object (`{"planSummary": {...}, "executionStats": {...}}`).
    /// - Throws: ``FirestoreError`` `.internal` naming the member that is not what the reference says.
    public init(restJSON json: JSONValue) throws(FirestoreError) {
        guard case .object = json else { throw Self.malformed("explainMetrics is a \(json.typeName), not an object") }
        var indexes: [[String: JSONValue]] = []
        switch json["planSummary"]?["indexesUsed"] {
        case nil, .null?: break
        case .array(let elements)?:
            for (position, element) in elements.enumerated() {
                guard case .object(let index) = element else {
                    throw Self.malformed("planSummary.indexesUsed[\(position)] is a \(element.typeName), not an object")
                }
                indexes.append(index)
            }
        case let other?: throw Self.malformed("planSummary.indexesUsed is a \(other.typeName), not an array")
        }
        let stats: ExecutionStats?
        switch json["executionStats"] {
        case nil, .null?: stats = nil
        case let value?: stats = try ExecutionStats(restJSON: value)
        }
        self.init(planSummary: PlanSummary(indexesUsed: indexes), executionStats: stats)
    }

    static func malformed(_ what: String) -> FirestoreError {
        FirestoreError(code: .internal, message: "explain metrics: \(what)")
    }

    /// The `explainMetrics` of a REST response stream (production sends them once, in the last element), or `nil`
    /// when no element carries them; the last element that does wins.
    /// - Throws: ``FirestoreError`` `.internal` naming `method` and the element for malformed metrics.
    package static func last(in elements: [JSONValue], method: String) throws(FirestoreError) -> ExplainMetrics? {
        var metrics: ExplainMetrics?
        for (position, element) in elements.enumerated() {
            guard let value = element["explainMetrics"] else { continue }
            do {
                metrics = try ExplainMetrics(restJSON: value)
            } catch {
                throw FirestoreError(code: .internal, message: "\(method) element \(position): \(error.message)")
            }
        }
        return metrics
    }
}

/// The planning phase of a query (REST reference: `PlanSummary`).
public struct PlanSummary: Sendable, Hashable {
    /// The indexes the query uses, each a JSON object as the server describes it, e.g.
    /// `{"query_scope": "Collection", "properties": "(category ASC, __name__ ASC)"}`.
    public let indexesUsed: [[String: JSONValue]]

    /// A summary listing `indexesUsed`.
    public init(indexesUsed: [[String: JSONValue]]) {
        self.indexesUsed = indexesUsed
    }
}

/// The execution of a query that ran (REST reference: `ExecutionStats`).
public struct ExecutionStats: Sendable, Hashable {
    /// Results returned: documents, projections, aggregation results or keys.
    public let resultsReturned: Int64
    /// The time the query took in the backend (seconds to nanoseconds).
    public let executionDuration: Duration
    /// Billable read operations.
    public let readOperations: Int64
    /// Debugging statistics, e.g. `{"billing_details": {"documents_billable": "1", "index_entries_billable": "1",
    /// "small_ops": "0", "min_query_cost": "0"}, "documents_scanned": "1", "index_entries_scanned": "1"}`; the
    /// server may change their shape.
    public let debugStats: [String: JSONValue]

    /// Stats from their parts.
    public init(
        resultsReturned: Int64, executionDuration: Duration, readOperations: Int64, debugStats: [String: JSONValue]
    ) {
        self.resultsReturned = resultsReturned
        self.executionDuration = executionDuration
        self.readOperations = readOperations
        self.debugStats = debugStats
    }

    /// Decodes a REST `ExecutionStats` object: int64 counts as decimal strings (or numbers), the duration as
    /// `"0.021600s"`.
    /// - Throws: ``FirestoreError`` `.internal` naming the member that is malformed.
    init(restJSON json: JSONValue) throws(FirestoreError) {
        guard case .object = json else {
            throw ExplainMetrics.malformed("executionStats is a \(json.typeName), not an object")
        }
        func count(_ key: String) throws(FirestoreError) -> Int64 {
            switch json[key] {
            case nil: return 0
            case .integer(let number)?: return number
            case .string(let text)?:
                guard let number = Int64(text) else {
                    throw ExplainMetrics.malformed("executionStats.\(key) \"\(text)\" is not an int64")
                }
                return number
            case let other?: throw ExplainMetrics.malformed("executionStats.\(key) is a \(other.typeName)")
            }
        }
        let duration: Duration
        switch json["executionDuration"] {
        case nil: duration = .zero
        case .string(let text)?:
            guard let parsed = Self.duration(text) else {
                throw ExplainMetrics.malformed("executionStats.executionDuration \"\(text)\" is not a Duration")
            }
            duration = parsed
        case let other?: throw ExplainMetrics.malformed("executionStats.executionDuration is a \(other.typeName)")
        }
        let debug: [String: JSONValue]
        switch json["debugStats"] {
        case nil, .null?: debug = [:]
        case .object(let members)?: debug = members
        case let other?: throw ExplainMetrics.malformed("executionStats.debugStats is a \(other.typeName)")
        }
        self.init(
            resultsReturned: try count("resultsReturned"), executionDuration: duration,
            readOperations: try count("readOperations"), debugStats: debug)
    }

    /// A proto3 JSON `Duration` (`"3.5s"`, `"-0.000000001s"`: seconds with up to nine fraction digits and an `s`),
    /// or `nil`.
    static func duration(_ text: String) -> Duration? {
        guard text.hasSuffix("s") else { return nil }
        var body = Substring(text.dropLast())
        let negative = body.hasPrefix("-")
        if negative { body = body.dropFirst() }
        let parts = body.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy(\.isASCIIDigit), whole.count <= 12,
            let seconds = Int64(whole)
        else { return nil }
        var nanos: Int64 = 0
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isASCIIDigit),
                let digits = Int64(fraction)
            else { return nil }
            nanos = digits * Int64(pow10(9 - fraction.count))
        }
        let total = Duration.seconds(seconds) + .nanoseconds(nanos)
        return negative ? .zero - total : total
    }

    private static func pow10(_ exponent: Int) -> Int {
        (0..<exponent).reduce(1) { value, _ in value * 10 }
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
