import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A decoded runAggregationQuery response: every aggregation result by alias, whatever the aliases (REST
/// reference: `projects.databases.documents.runAggregationQuery`, a stream of `RunAggregationQueryResponse`
/// whose `result.aggregateFields` maps each alias to a Value).
///
/// ```swift
/// // A response recorded elsewhere (a cassette, a log), with aliases of any name:
/// let response = try RunAggregationQueryResponse(decoding: body)
/// response.aggregateFields["total"]   // .integer(6)
/// ```
public struct RunAggregationQueryResponse: Sendable, Hashable {
    /// Each result by its alias: the caller's alias, `aggregate_<i>` for one this client picked, or the
    /// server's `field_<n>` for an aggregation sent without an alias.
    public let aggregateFields: [String: AggregateValue]
    /// The newest `readTime` of the stream: the time the result is consistent at.
    public let readTime: Timestamp?
    /// The ID of the transaction a `newTransaction` request began, or `nil`.
    public let transaction: String?

    /// A response with these members.
    public init(aggregateFields: [String: AggregateValue], readTime: Timestamp?, transaction: String? = nil) {
        self.aggregateFields = aggregateFields
        self.readTime = readTime
        self.transaction = transaction
    }

    /// Decodes a response body: a JSON array of elements with `result.aggregateFields`, `readTime` and (with
    /// `newTransaction`) `transaction`; results of several elements are merged. An `{"error"}` object or element
    /// is thrown as the server's error.
    /// - Throws: ``FirestoreError``: the server's error; `.internal` naming the element or alias for a body
    ///   that is not such an array, a malformed time, or a value that is not an integer, double or null.
    public init(decoding json: JSONValue) throws(FirestoreError) {
        let elements = try Firestore.streamElements(json, method: "runAggregationQuery")
        var readTime: Timestamp?
        var transaction: String?
        var fields: [String: AggregateValue] = [:]
        for (position, element) in elements.enumerated() {
            try Firestore.noteReadTime(element, position: position, into: &readTime)
            try Firestore.noteTransaction(
                element, position: position, method: "runAggregationQuery", into: &transaction)
            guard let result = element["result"] else { continue }
            let members: [String: JSONValue]
            switch result["aggregateFields"] {
            case nil: members = [:]
            case .object(let object)?: members = object
            case let other?:
                let article = ["array", "object"].contains(other.typeName) ? "an" : "a"
                throw FirestoreError(
                    code: .internal,
                    message: "runAggregationQuery element \(position): aggregateFields is \(article) \(other.typeName)")
            }
            for (alias, value) in members {
                fields[alias] = try Self.aggregateValue(value, alias: alias)
            }
        }
        self.init(aggregateFields: fields, readTime: readTime, transaction: transaction)
    }

    /// Decodes a response body from its bytes; see ``init(decoding:)-(JSONValue)``.
    /// - Throws: as ``init(decoding:)-(JSONValue)``; `.internal` with the byte offset for malformed JSON or an
    ///   empty body.
    public init(decoding body: Data) throws(FirestoreError) {
        guard !body.isEmpty else {
            throw FirestoreError(code: .internal, message: "runAggregationQuery response body is empty")
        }
        let json: JSONValue
        do {
            json = try JSONValue.parse(body)
        } catch {
            throw FirestoreError(code: .internal, message: "runAggregationQuery response is not JSON: \(error)")
        }
        try self.init(decoding: json)
    }

    private static func aggregateValue(_ json: JSONValue, alias: String) throws(FirestoreError) -> AggregateValue {
        switch try FirestoreValue(restJSON: json, at: "aggregate \(alias)") {
        case .integer(let number): return .integer(number)
        case .double(let number): return .double(number)
        case .null: return .null
        case let other:
            throw FirestoreError(code: .internal, message: "aggregate \(alias) is a \(other.typeName)")
        }
    }
}
