import FirestoreREST
import Foundation

extension Cassette {
    /// The cassette as its JSON file: pretty-printed (two spaces), keys sorted, ending in a newline, so the
    /// same cassette always gives the same bytes. See ``Cassette`` for the shape.
    /// - Complexity: O(n log k) in the size of the cassette.
    public func jsonData() -> Data {
        var data = json.serialized(pretty: true)
        data.append(0x0A)
        return data
    }

    /// The cassette as a `JSONValue` (the content of ``jsonData()``).
    public var json: JSONValue {
        var members: [String: JSONValue] = [
            "format": .string(Self.formatName),
            "version": .integer(Int64(Self.formatVersion)),
            "interactions": .array(interactions.map(\.json)),
        ]
        if !listenSessions.isEmpty { members["listenSessions"] = .array(listenSessions.map(\.json)) }
        return .object(members)
    }

    /// Reads a cassette from the bytes of its JSON file.
    /// - Parameters:
    ///   - data: the file's bytes.
    ///   - source: how to name the cassette in error messages, e.g. its file name.
    /// - Throws: `FirestoreError` `.invalidArgument` naming `source` and where the fault is: the byte offset
    ///   of a JSON syntax error, or the member (`interactions[3].response.status`) that is missing or has the
    ///   wrong type (`listenSessions[0].messages[2].at`); a `format` other than `firestore-feed-cassette` or a `version`
    ///   other than `1`.
    public init(jsonData data: Data, source: String = "cassette") throws(FirestoreError) {
        let root: JSONValue
        do {
            root = try JSONValue.parse(data)
        } catch {
            throw .invalidArgument("\(source): not a cassette: \(error)")
        }
        let reader = CassetteReader(source: source)
        let members = try reader.object(root, at: "")
        guard members["format"]?.stringValue == Self.formatName else {
            throw .invalidArgument("\(source): not a cassette: \"format\" is not \"\(Self.formatName)\"")
        }
        guard case .integer(let version)? = members["version"], version == Int64(Self.formatVersion) else {
            throw .invalidArgument(
                "\(source): unsupported cassette version \(members["version"]?.serializedString() ?? "(missing)")"
                    + " (this reader knows version \(Self.formatVersion))")
        }
        let list = try reader.array(members["interactions"], at: "interactions")
        var interactions: [Interaction] = []
        interactions.reserveCapacity(list.count)
        for (index, element) in list.enumerated() {
            interactions.append(try reader.interaction(element, at: "interactions[\(index)]"))
        }
        var listenSessions: [ListenSession] = []
        if let sessions = members["listenSessions"] {
            for (index, element) in try reader.array(sessions, at: "listenSessions").enumerated() {
                listenSessions.append(try reader.listenSession(element, at: "listenSessions[\(index)]"))
            }
        }
        self.init(interactions: interactions, listenSessions: listenSessions)
    }

    /// Reads the cassette file at `path`. A file that a recording killed in the middle of an append left cut short
    /// is read with the journal beside it (`PATH-journal`, see ``RecordingTransport``): every interaction whose
    /// write had started is there.
    /// - Throws: `FirestoreError` `.notFound` when there is no file at `path`, `.unavailable` when it cannot
    ///   be read, or the errors of ``init(jsonData:source:)`` with the file name as the source.
    public init(contentsOfFile path: String) throws(FirestoreError) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw FirestoreError(code: .notFound, message: "no cassette at \(path)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw FirestoreError(
                code: .unavailable, message: "cannot read the cassette \(path): \(error.localizedDescription)")
        }
        do {
            try self.init(jsonData: data, source: path)
        } catch {
            guard let recovered = CassetteJournal.recover(data, journal: CassetteJournal.path(for: path)),
                let cassette = try? Cassette(jsonData: recovered, source: path)
            else { throw error }
            self = cassette
        }
    }

    /// Writes ``jsonData()`` to `path` atomically (a temporary file renamed into place), so a reader never
    /// sees half a cassette. The cassette is written as it is; ``RecordingTransport`` scrubs secrets before
    /// it hands one out.
    /// - Throws: `FirestoreError` `.unavailable` naming the path and the system's reason.
    public func write(toFile path: String) throws(FirestoreError) {
        do {
            try jsonData().write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw FirestoreError(
                code: .unavailable, message: "cannot write the cassette \(path): \(error.localizedDescription)")
        }
    }
}

extension Cassette.Interaction {
    var json: JSONValue {
        var members: [String: JSONValue] = [
            "request": request.json, "elapsed": .double(elapsed), "duration": .double(duration),
        ]
        if let failure { members["failure"] = failure.json } else { members["response"] = response.json }
        return .object(members)
    }
}

extension Cassette.Request {
    var json: JSONValue {
        var members: [String: JSONValue] = ["method": .string(method), "path": .string(path)]
        if !headers.isEmpty { members["headers"] = Cassette.headersJSON(headers) }
        if let body, !body.isEmpty { Cassette.addBody(body, to: &members) }
        return .object(members)
    }
}

extension Cassette.Response {
    var json: JSONValue {
        var members: [String: JSONValue] = ["status": .integer(Int64(status))]
        if !headers.isEmpty { members["headers"] = Cassette.headersJSON(headers) }
        if !body.isEmpty { Cassette.addBody(body, to: &members) }
        return .object(members)
    }
}

extension Cassette {
    /// Headers as an object: one member per name, a string, or an array of strings when repeated.
    static func headersJSON(_ headers: [HTTPHeader]) -> JSONValue {
        var grouped: [String: [String]] = [:]
        for header in headers { grouped[header.name, default: []].append(header.value) }
        return .object(
            grouped.mapValues { values in
                values.count == 1 ? .string(values[0]) : .array(values.map(JSONValue.string))
            })
    }

    /// `body` (UTF-8 text) or `bodyBase64` (anything else).
    static func addBody(_ body: Data, to members: inout [String: JSONValue]) {
        if let text = String(data: body, encoding: .utf8) {
            members["body"] = .string(text)
        } else {
            members["bodyBase64"] = .string(body.base64EncodedString())
        }
    }
}

/// Reads the members of a cassette's JSON, naming the member path in every error.
struct CassetteReader {
    let source: String

    func fail(_ path: String, _ reason: String) -> FirestoreError {
        .invalidArgument("\(source): \(path.isEmpty ? "top level" : path): \(reason)")
    }

    func object(_ value: JSONValue?, at path: String) throws(FirestoreError) -> [String: JSONValue] {
        guard let value else { throw fail(path, "missing") }
        guard case .object(let members) = value else { throw fail(path, "expected an object, found \(value.typeName)") }
        return members
    }

    func array(_ value: JSONValue?, at path: String) throws(FirestoreError) -> [JSONValue] {
        guard let value else { throw fail(path, "missing") }
        guard case .array(let elements) = value else { throw fail(path, "expected an array, found \(value.typeName)") }
        return elements
    }

    func string(_ value: JSONValue?, at path: String) throws(FirestoreError) -> String {
        guard let value else { throw fail(path, "missing") }
        guard case .string(let text) = value else { throw fail(path, "expected a string, found \(value.typeName)") }
        return text
    }

    /// A non-negative number of seconds; a missing member is 0.
    func seconds(_ value: JSONValue?, at path: String) throws(FirestoreError) -> Double {
        switch value {
        case nil: return 0
        case .integer(let number)?: if number >= 0 { return Double(number) }
        case .double(let number)?: if number.isFinite, number >= 0 { return number }
        default: break
        }
        throw fail(path, "expected a number of seconds, 0 or more")
    }

    /// A count, 0 or more; `nil` when the member is missing.
    func count(_ value: JSONValue?, at path: String) throws(FirestoreError) -> Int? {
        switch value {
        case nil: return nil
        case .integer(let number)?: if number >= 0, number <= Int64(Int32.max) { return Int(number) }
        default: break
        }
        throw fail(path, "expected a count, 0 or more")
    }

    func interaction(_ value: JSONValue, at path: String) throws(FirestoreError) -> Cassette.Interaction {
        let members = try object(value, at: path)
        let requestPath = path + ".request"
        let request = try object(members["request"], at: requestPath)
        let method = try string(request["method"], at: requestPath + ".method")
        guard !method.isEmpty else { throw fail(requestPath + ".method", "empty") }
        let recorded = Cassette.Request(
            method: method, path: try string(request["path"], at: requestPath + ".path"),
            headers: try headers(request["headers"], at: requestPath + ".headers"),
            body: try body(request, at: requestPath))
        let elapsed = try seconds(members["elapsed"], at: path + ".elapsed")
        let duration = try seconds(members["duration"], at: path + ".duration")
        if let failure = members["failure"] {
            guard members["response"] == nil else { throw fail(path, "has both a response and a failure") }
            return Cassette.Interaction(
                request: recorded, failure: try self.failure(failure, at: path + ".failure"), elapsed: elapsed,
                duration: duration)
        }
        let responsePath = path + ".response"
        let response = try object(members["response"], at: responsePath)
        guard case .integer(let status)? = response["status"], (100...999).contains(status) else {
            throw fail(responsePath + ".status", "expected a whole number from 100 to 999")
        }
        return Cassette.Interaction(
            request: recorded,
            response: Cassette.Response(
                status: Int(status), headers: try headers(response["headers"], at: responsePath + ".headers"),
                body: try body(response, at: responsePath) ?? Data()),
            elapsed: elapsed, duration: duration)
    }

    func headers(_ value: JSONValue?, at path: String) throws(FirestoreError) -> [HTTPHeader] {
        guard let value else { return [] }
        let members = try object(value, at: path)
        var headers: [HTTPHeader] = []
        for name in members.keys.sorted() {
            switch members[name] {
            case .string(let text)?:
                headers.append(HTTPHeader(name, text))
            case .array(let values)?:
                for (index, element) in values.enumerated() {
                    headers.append(HTTPHeader(name, try string(element, at: "\(path).\(name)[\(index)]")))
                }
            default:
                throw fail("\(path).\(name)", "expected a string or an array of strings")
            }
        }
        return headers
    }

    func body(_ members: [String: JSONValue], at path: String) throws(FirestoreError) -> Data? {
        if members["body"] != nil, members["bodyBase64"] != nil {
            throw fail(path, "has both body and bodyBase64")
        }
        if let text = members["body"] {
            return Data(try string(text, at: path + ".body").utf8)
        }
        if let encoded = members["bodyBase64"] {
            guard let data = Data(base64Encoded: try string(encoded, at: path + ".bodyBase64")) else {
                throw fail(path + ".bodyBase64", "not valid base64")
            }
            return data
        }
        return nil
    }
}
