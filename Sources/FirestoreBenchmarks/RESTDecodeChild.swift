import FirestoreREST
import Foundation

/// One decode of a runQuery REST body run once, for `Scripts/bench-instructions` (`rest-decode-N`,
/// `rest-decode-tree-N`, issue 37): the body is `N` of ``BenchmarkDocuments``' documents (every value kind),
/// pretty-printed with two spaces as the emulator sends it; the part decodes it with
/// `Firestore.decodeRunQuery(body:)` straight from the bytes (`bytes`) or through each element's JSON tree
/// (`tree`, the path before issue 37), or does nothing more (`inputs`, the count to subtract).
enum RESTDecodeChild {
    static let childFlag = "--rest-decode-child"

    enum Part: String {
        case inputs, bytes, tree
    }

    /// Builds the body, runs `part` once, checks the document count and prints
    /// `{"part":"PART","n":N,"bytes":B,"seconds":S}` (the part's wall time alone).
    /// - Throws: ``BenchmarkError`` when the decode returns another number of documents.
    static func run(part: Part, n: Int) throws {
        let elements: [JSONValue] = BenchmarkDocuments.documents(n).map { document in
            ["document": document.restJSON(), "readTime": "2024-05-01T12:35:00.123456Z"]
        }
        let body = JSONValue.array(elements + [["readTime": "2024-05-01T12:35:00.123456Z", "done": true]])
            .serialized(pretty: true)
        var documents = n
        let seconds = try Harness.seconds {
            switch part {
            case .inputs: DiffWorkload.keep(body)
            case .bytes, .tree:
                let response = try Firestore.decodeRunQuery(body: body, bytesFirst: part == .bytes)
                documents = response.documents.count
                DiffWorkload.keep(response)
            }
        }
        guard documents == n else {
            throw BenchmarkError(message: "rest decode child: \(documents) documents, expected \(n)")
        }
        print("{\"part\":\"\(part.rawValue)\",\"n\":\(n),\"bytes\":\(body.count),\"seconds\":\(seconds)}")
    }
}
