import FirestoreREST

/// One line of an `import` file, a JSON object: `id` (the document ID; absent for an automatic one) and the
/// fields as exactly one of `data` (plain JSON values, as `set` takes them) or `fields` (Firestore REST
/// `Document.fields`: a map of `Value` objects such as `{"integerValue":"52"}`, which keeps every type:
/// timestamps, bytes, references, geo points, NaN). The members `export` also writes (`path`, `createTime`,
/// `updateTime`) are ignored, so `export` output imports as it is; any other member is refused.
package struct ImportLine: Equatable, Sendable {
    /// The members a line may have besides `id`, `data` and `fields`, ignored.
    package static let ignoredMembers: Set<String> = ["path", "createTime", "updateTime"]

    /// The document ID, or `nil` for an automatic one.
    package let id: String?
    /// The document's fields.
    package let fields: [String: FirestoreValue]

    package init(id: String?, fields: [String: FirestoreValue]) {
        self.id = id
        self.fields = fields
    }

    /// Parses one line.
    /// - Throws: ``FirestoreError`` `.invalidArgument` saying what is wrong (not JSON, not an object, an `id`
    ///   that is not a non-empty string without `/`, both or neither of `data` and `fields`, an unknown member,
    ///   an integer that does not fit in 64 bits, a malformed REST value naming its field).
    /// - Complexity: O(n) in the length of the line.
    package init(parsing text: String) throws(FirestoreError) {
        let json: JSONValue
        do {
            json = try JSONValue.parse(text)
        } catch {
            throw .invalidArgument("not JSON (\(error))")
        }
        guard case .object(let members) = json else {
            throw .invalidArgument(
                "expected a JSON object {\"id\",\"data\"} or {\"id\",\"fields\"}, found \(json.typeName)")
        }
        if let unknown = members.keys.sorted().first(where: {
            !["id", "data", "fields"].contains($0) && !Self.ignoredMembers.contains($0)
        }) {
            throw .invalidArgument(
                "unknown member \"\(unknown)\" (expected id, and data or fields; path, createTime and updateTime "
                    + "are ignored)")
        }
        switch members["id"] {
        case nil: id = nil
        case .string(let text)? where !text.isEmpty && !text.contains("/"): id = text
        case let other?:
            throw .invalidArgument(
                "\"id\" must be a document ID (a non-empty string without /), found \(other.serializedString())")
        }
        if let literal = WhereClause.oversizedIntegerLiteral(in: text) {
            throw .invalidArgument("the integer \(literal) does not fit in 64 bits")
        }
        switch (members["data"], members["fields"]) {
        case (.object(let data)?, nil):
            fields = data.mapValues(FirestoreValue.init(plainJSON:))
        case (nil, .object(let typed)?):
            var decoded: [String: FirestoreValue] = [:]
            for (name, value) in typed {
                decoded[name] = try FirestoreValue(restJSON: value, at: "fields.\(name)")
            }
            fields = decoded
        case (nil, nil):
            throw .invalidArgument("no \"data\" (plain JSON) or \"fields\" (Firestore REST values) object")
        case (.some, .some):
            throw .invalidArgument("both \"data\" and \"fields\": give one")
        case (let data?, nil):
            throw .invalidArgument("\"data\" must be an object, found \(data.typeName)")
        case (nil, let typed?):
            throw .invalidArgument("\"fields\" must be an object, found \(typed.typeName)")
        }
    }
}
