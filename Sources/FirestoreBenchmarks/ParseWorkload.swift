import FirestoreREST
import Foundation

/// `parse` (issue 9): a runQuery response of 10,000 documents of ~1 KB (10 fields of mixed types) to
/// `[Document]` with the package's streaming parser and value mapping (what `runQuery` does), against Foundation's `JSONSerialization` on the
/// same bytes (which builds untyped `Any` trees only). Target: at most 1.5x.
enum ParseWorkload {
    static func run(count: Int) throws -> [Measurement] {
        let body = BenchmarkDocuments.runQueryBody(BenchmarkDocuments.documents(count))
        let check = try Firestore.decodeRunQuery(JSONValue.parse(body))
        guard check.documents.count == count else {
            throw BenchmarkError(message: "parse: \(check.documents.count) documents, expected \(count)")
        }
        print("parse: \(body.count) bytes, \(body.count / max(count, 1)) bytes per document")
        var sink = 0
        let measurement = try Harness.compare(
            workload: "parse", n: count, baseline: "JSONSerialization",
            candidate: { sink &+= try Firestore.decodeRunQuery(body: body).documents.count },
            baselineBody: {
                if let array = try JSONSerialization.jsonObject(with: body) as? [Any] { sink &+= array.count }
            })
        if sink == 42 { print("") }
        return [measurement]
    }
}
