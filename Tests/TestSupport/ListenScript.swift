import FirestoreFeed
import FirestoreREST

/// Steps of a `Scripts/grpc-script-server` script: Listen responses in ProtoJSON (`google/firestore/v1/
/// firestore.proto`, as `ListenResponse.from_json` reads them) and the server's faults. Documents live in collection
/// `fruits` of project `demo-faults` unless a test says otherwise.
package enum ListenScript {
    package static let project = "demo-faults"
    package static let database = "projects/\(project)/databases/(default)"

    /// The full name of document `id` of `fruits` (or of `collection`, in `project`).
    package static func name(_ id: String, collection: String = "fruits", project: String = project) -> String {
        "projects/\(project)/databases/(default)/documents/\(collection)/\(id)"
    }

    /// `2026-01-01T00:00:SSZ`, the read and update times of the scripts.
    package static func time(_ second: Int) -> String {
        "2026-01-01T00:\(String(format: "%02d", second / 60)):\(String(format: "%02d", second % 60))Z"
    }

    package static func target(_ kind: String, _ ids: [Int], token: [UInt8]? = nil, readTime: Int? = nil) -> JSONValue {
        var change: [String: JSONValue] = [
            "targetChangeType": .string(kind), "targetIds": .array(ids.map { .integer(Int64($0)) }),
        ]
        if let token { change["resumeToken"] = .string(base64(token)) }
        if let readTime { change["readTime"] = .string(time(readTime)) }
        return ["respond": ["targetChange": .object(change)]]
    }

    /// A `NO_CHANGE` with no target IDs and a read time: a consistent snapshot point.
    package static func point(_ readTime: Int, token: [UInt8]? = nil) -> JSONValue {
        target("NO_CHANGE", [], token: token, readTime: readTime)
    }

    /// A `DocumentChange` putting document `name` (with `n`, updated at second `updated`) into `targets`.
    package static func document(_ name: String, n: Int, updated: Int, targets: [Int] = [1]) -> JSONValue {
        [
            "respond": [
                "documentChange": [
                    "document": [
                        "name": .string(name), "fields": ["n": ["integerValue": .string(String(n))]],
                        "createTime": .string(time(1)), "updateTime": .string(time(updated)),
                    ],
                    "targetIds": .array(targets.map { .integer(Int64($0)) }),
                ]
            ]
        ]
    }

    /// A `DocumentDelete` of `name` from `targets`.
    package static func delete(_ name: String, readTime: Int, targets: [Int] = [1]) -> JSONValue {
        [
            "respond": [
                "documentDelete": [
                    "document": .string(name), "readTime": .string(time(readTime)),
                    "removedTargetIds": .array(targets.map { .integer(Int64($0)) }),
                ]
            ]
        ]
    }

    /// The whole first snapshot of target `id`: wait for its `add_target`, `ADD`, the documents (`ids` of `fruits`,
    /// `n` = position + 1), `CURRENT` with `token`, a snapshot point at `readTime`.
    package static func snapshot(
        _ ids: [String], target id: Int = 1, token: [UInt8], readTime: Int, awaitingRequests: Int = 1
    ) -> [JSONValue] {
        [["awaitRequests": .integer(Int64(awaitingRequests))], target("ADD", [id])]
            + ids.enumerated().map { document(name($1), n: $0 + 1, updated: readTime, targets: [id]) }
            + [target("CURRENT", [id], token: token), point(readTime)]
    }

    /// Trailers with `status` (a gRPC status number) and `message`: ends the call.
    package static func end(_ status: Int, _ message: String = "") -> JSONValue {
        ["end": ["status": .integer(Int64(status)), "message": .string(message)]]
    }

    /// A trailers-only answer with `status`.
    package static func trailersOnly(_ status: Int, _ message: String = "") -> JSONValue {
        ["trailersOnly": ["status": .integer(Int64(status)), "message": .string(message)]]
    }

    /// A non-gRPC answer with HTTP `status`.
    package static func http(_ status: Int, _ body: String = "") -> JSONValue {
        ["http": ["status": .integer(Int64(status)), "body": .string(body)]]
    }

    package static let hang: JSONValue = ["hang": true]
    package static let blackhole: JSONValue = ["blackhole": true]
    package static let close: JSONValue = ["close": true]
    package static let abort: JSONValue = ["abort": true]
    package static func reset(_ code: Int) -> JSONValue { ["reset": .integer(Int64(code))] }
    package static func goAway(_ code: Int) -> JSONValue { ["goaway": .integer(Int64(code))] }
    package static func sleep(_ seconds: Double) -> JSONValue { ["sleep": .double(seconds)] }
    package static func awaitRequests(_ count: Int) -> JSONValue { ["awaitRequests": .integer(Int64(count))] }

    /// The script text: one step list per Listen call, in order (the last serves later calls).
    package static func script(_ calls: [[JSONValue]]) -> String {
        JSONValue.object(["listen": .array(calls.map { .array($0) })]).serializedString()
    }

    package static func base64(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
        var text = ""
        var index = 0
        while index < bytes.count {
            let chunk = Array(bytes[index..<min(index + 3, bytes.count)])
            let value = chunk.enumerated().reduce(0) { $0 | Int($1.element) << (16 - 8 * $1.offset) }
            for position in 0..<4 {
                text.append(position <= chunk.count ? alphabet[(value >> (18 - 6 * position)) & 63] : "=")
            }
            index += 3
        }
        return text
    }
}
