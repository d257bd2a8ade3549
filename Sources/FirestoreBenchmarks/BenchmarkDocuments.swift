import FirestoreREST
import Foundation

/// Deterministic ~1 KB documents with 10 fields of mixed types, and their runQuery response bodies: the
/// input of the `parse`, `poll-unchanged`, `feed-100k` and `memory` workloads.
enum BenchmarkDocuments {
    static let root = "projects/bench/databases/(default)/documents"

    /// Document `index` of the `items` collection.
    static func document(_ index: Int, version: Int = 0) -> Document {
        let time = Timestamp.minimum
        let updated = (try? Timestamp(seconds: 1_714_566_896 + Int64(version), nanos: 123_456_000)) ?? time
        return Document(
            name: "\(root)/items/item\(String(repeating: "0", count: max(0, 6 - String(index).count)))\(index)",
            fields: [
                "title": .string("Item number \(index) with a reasonably long title"),
                "count": .integer(Int64(index) * 7919),
                "price": .double(Double(index) * 1.25 + 0.5),
                "active": .boolean(index % 2 == 0),
                "created": .timestamp(
                    (try? Timestamp(seconds: 1_714_566_896, nanos: Int32(index % 1000) * 1000)) ?? time),
                "tags": .array([.string("alpha"), .string("beta"), .string("gamma\(index % 10)")]),
                "location": .geoPoint(GeoPoint(latitude: 37.5, longitude: -122.25)),
                "owner": .reference("\(root)/users/u\(index % 100)"),
                "meta": .map([
                    "version": .integer(Int64(version)), "source": .string("import-\(index % 50)"),
                    "note": .null,
                ]),
                "description": .string(String(repeating: "lorem ipsum dolor sit amet ", count: 16)),
            ],
            createTime: time, updateTime: updated)
    }

    /// `count` documents.
    static func documents(_ count: Int) -> [Document] { (0..<count).map { document($0) } }

    /// A runQuery response body for `documents` (compact JSON, one element per document, as production
    /// sends it); with `keysOnly` the documents carry only name and times, as `select __name__` returns them.
    static func runQueryBody(_ documents: [Document], keysOnly: Bool = false) -> Data {
        let readTime: JSONValue = "2024-05-01T12:35:00Z"
        var elements: [JSONValue] = documents.map { document in
            var json = document.restJSON()
            if keysOnly, case .object(var members) = json {
                members["fields"] = nil
                json = .object(members)
            }
            return ["document": json, "readTime": readTime]
        }
        if elements.isEmpty { elements = [["readTime": readTime, "done": true]] }
        return JSONValue.array(elements).serialized()
    }
}

/// A transport that answers every request with one fixed body: the network taken out of a measurement.
struct FixedResponseTransport: HTTPTransport {
    let body: Data

    func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [HTTPHeader("Content-Type", "application/json")], body: body)
    }
}

/// Runs an async body to completion from synchronous benchmark code: the benchmark's main thread, never a thread
/// of the cooperative pool (the body runs there, so blocking this thread cannot starve it).
func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.set(.success(try await body())) } catch { box.set(.failure(error)) }
        done.signal()
    }
    done.wait()  // the benchmark's main thread (see above)
    return try box.get()
}

final class ResultBox<T: Sendable>: @unchecked Sendable {
    private var result: Result<T, any Error>?
    private let lock = NSLock()
    func set(_ value: Result<T, any Error>) { lock.withLock { result = value } }
    func get() throws -> T {
        guard let result = lock.withLock({ result }) else {
            throw BenchmarkError(message: "async body produced no result")
        }
        return try result.get()
    }
}
