import FirestoreREST

/// `COLLECTION_PATH` and the query options shared by `watch`, `query`, `count` and `export`: filters, orders,
/// cursors, projection, offset, limits and the collection-group switch.
package struct QueryOptions: Sendable {
    static let options: [OptionSpec] = [
        .value(
            "--where", "'FIELD OP VALUE'",
            help: """
                filter (repeatable, ANDed); OP: == != < <= > >= array-contains
                array-contains-any in not-in; VALUE is JSON (3 is an integer,
                3.0 a double, "x" a string, [1,2] an array)
                """),
        .value("--order-by", "FIELD[:desc]", help: "order (repeatable); FIELD:asc (the default) or FIELD:desc"),
        .value("--limit", "N", help: "at most the first N documents"),
        .value("--limit-to-last", "N", help: "at most the last N documents (needs --order-by)"),
        .value("--start-at", "VALUES", help: "start at these order values (comma-separated JSON: 3,\"x\")"),
        .value("--start-after", "VALUES", help: "start after these order values"),
        .value("--end-at", "VALUES", help: "end at these order values"),
        .value("--end-before", "VALUES", help: "end before these order values"),
        .value("--select", "FIELD,FIELD", help: "return only these fields (an empty value: document names only)"),
        .value("--offset", "N", help: "skip the first N documents"),
        .flag("--collection-group", help: "COLLECTION_PATH is a collection ID: query every collection with it"),
    ]

    /// A cursor option.
    package enum Cursor: String, CaseIterable, Sendable {
        case startAt = "--start-at"
        case startAfter = "--start-after"
        case endAt = "--end-at"
        case endBefore = "--end-before"
    }

    /// The collection queried (a collection ID with `--collection-group`).
    package let collectionPath: String
    package let clauses: [WhereClause]
    package let orders: [QueryOrder]
    /// `--limit N`.
    package let limit: Int?
    /// `--limit-to-last N`.
    package let limitToLast: Int?
    /// The cursors given, in ``Cursor`` order.
    package let cursors: [(cursor: Cursor, values: [FirestoreValue])]
    package let selection: [FieldPath]?
    package let offset: Int?
    package let collectionGroup: Bool

    /// The one `COLLECTION_PATH` of `command` and the query options.
    /// - Throws: ``ValidationError`` for another number of arguments, or naming the bad option and value.
    package init(parsing reader: ArgumentReader, command: String) throws(ValidationError) {
        guard reader.positionals.count == 1, let collectionPath = reader.positionals.first else {
            throw ValidationError(
                "\(command) needs exactly one COLLECTION_PATH"
                    + Self.unquotedWhereHint(positionals: reader.positionals, clauses: reader.all("--where")))
        }
        try self.init(parsing: reader, collectionPath: collectionPath)
    }

    /// The query options over `collectionPath`.
    /// - Throws: ``ValidationError`` naming the bad option and value.
    package init(parsing reader: ArgumentReader, collectionPath: String) throws(ValidationError) {
        self.collectionPath = collectionPath
        clauses = try reader.all("--where").map { (text) throws(ValidationError) in
            do throws(FirestoreError) {
                return try WhereClause(parsing: text)
            } catch {
                throw ValidationError(error.message)
            }
        }
        orders = try reader.all("--order-by").map(Self.order)
        limit = try Self.count(reader, "--limit")
        limitToLast = try Self.count(reader, "--limit-to-last")
        var cursors: [(Cursor, [FirestoreValue])] = []
        for cursor in Cursor.allCases {
            guard let text = reader.value(cursor.rawValue) else { continue }
            cursors.append((cursor, try Self.values(text, cursor: cursor)))
        }
        self.cursors = cursors
        selection = try reader.value("--select").map { (text) throws(ValidationError) in try Self.fields(text) }
        offset = try Self.count(reader, "--offset")
        collectionGroup = reader.has("--collection-group")
    }

    /// Checks, before any connection is made (and before any note is printed), that these options make a query
    /// over ``collectionPath`` that can be sent: the options that exclude or need each other, the path, the
    /// cursors against the orders.
    /// - Throws: ``ValidationError``, with the query's own message for what the query refuses.
    package func validate() throws(ValidationError) {
        if limit != nil, limitToLast != nil {
            throw ValidationError("--limit and --limit-to-last cannot be combined")
        }
        if limitToLast != nil, orders.isEmpty {
            throw ValidationError("--limit-to-last needs at least one --order-by")
        }
        let given = Set(cursors.map(\.cursor))
        if given.isSuperset(of: [.startAt, .startAfter]) {
            throw ValidationError("--start-at and --start-after cannot be combined")
        }
        if given.isSuperset(of: [.endAt, .endBefore]) {
            throw ValidationError("--end-at and --end-before cannot be combined")
        }
        do {
            let offline = Firestore(
                database: try DatabaseID(projectID: "check"), baseURL: "http://check.invalid/v1/",
                credentials: NoCredentials(), transport: CurlTransport(), isEmulator: true)
            _ = try query(on: offline).runQueryBody()
        } catch {
            throw ValidationError(error.message)
        }
    }

    /// The query over ``collectionPath`` with these options.
    package func query(on firestore: Firestore) -> Query {
        var query =
            collectionGroup ? firestore.collectionGroup(collectionPath) : firestore.collection(collectionPath).query
        for clause in clauses { query = query.whereField(clause.field, clause.op, clause.value) }
        for order in orders { query = query.order(by: order.field, descending: order.descending) }
        for (cursor, values) in cursors {
            switch cursor {
            case .startAt: query = query.start(at: values)
            case .startAfter: query = query.start(after: values)
            case .endAt: query = query.end(at: values)
            case .endBefore: query = query.end(before: values)
            }
        }
        if let selection { query = query.select(fields: selection) }
        if let offset { query = query.offset(offset) }
        if let limit { query = query.limit(to: limit) }
        if let limitToLast { query = query.limit(toLast: limitToLast) }
        return query
    }

    /// `--order-by FIELD[:asc|:desc]`.
    private static func order(_ text: String) throws(ValidationError) -> QueryOrder {
        var fieldText = text
        var descending = false
        if text.hasSuffix(":desc") {
            fieldText = String(text.dropLast(5))
            descending = true
        } else if text.hasSuffix(":asc") {
            fieldText = String(text.dropLast(4))
        }
        if FieldPathArgument.hasUnquoted(in: fieldText, where: { $0 == ":" || $0.properties.isWhitespace }) {
            throw ValidationError(
                "--order-by \(MessageQuote.quoted(text)): use FIELD, FIELD:asc or FIELD:desc (a field name with ':' or "
                    + "spaces goes in backticks)")
        }
        do {
            return QueryOrder(field: try FieldPathArgument.fieldPath(fieldText), descending: descending)
        } catch {
            throw ValidationError("--order-by \(MessageQuote.quoted(text)): \(error.message)")
        }
    }

    /// A cursor's comma-separated JSON values.
    private static func values(_ text: String, cursor: Cursor) throws(ValidationError) -> [FirestoreValue] {
        let flag = cursor.rawValue + " " + MessageQuote.quoted(text)
        let parsed: JSONValue
        do {
            parsed = try JSONValue.parse("[" + text + "]")
        } catch {
            throw ValidationError("\(flag): not comma-separated JSON values (\(error))")
        }
        guard case .array(let values) = parsed, !values.isEmpty else {
            throw ValidationError("\(flag): expected comma-separated JSON values")
        }
        if let literal = WhereClause.oversizedIntegerLiteral(in: text) {
            throw ValidationError(
                "\(flag): the integer \(MessageQuote.quoted(literal, open: "", close: "")) does not fit in 64 bits")
        }
        return values.map(FirestoreValue.init(plainJSON:))
    }

    /// `--select FIELD,FIELD`.
    private static func fields(_ text: String) throws(ValidationError) -> [FieldPath] {
        do {
            return try FieldPathArgument.splitFields(text).map { (field) throws(FirestoreError) in
                try FieldPathArgument.fieldPath(field)
            }
        } catch {
            throw ValidationError("--select \(MessageQuote.quoted(text)): \(error.message)")
        }
    }

    /// A count option: a whole number from 0 to `Int32.max`.
    private static func count(_ reader: ArgumentReader, _ flag: String) throws(ValidationError) -> Int? {
        try reader.integer(flag, in: 0...Int(Int32.max), expected: "a whole number")
    }

    /// For a `--where` clause given unquoted (`--where isFavourite == true`: the shell splits it, so the clause is
    /// `isFavourite` and `==`, `true` become arguments), `, got N (ARGS): quote each --where clause as one argument:
    /// --where 'isFavourite == true'` (a value that is not JSON shown as a JSON string: `color == "red"`); for other
    /// extra arguments, `, got N (ARGS)`; for none, nothing.
    static func unquotedWhereHint(positionals: [String], clauses: [String]) -> String {
        guard positionals.count > 1 else { return "" }
        let got =
            ", got \(positionals.count) "
            + MessageQuote.quoted(positionals.joined(separator: " "), open: "(", close: ")")
        guard let clause = clauses.first(where: { !$0.contains(" ") }),
            let opIndex = positionals.firstIndex(where: { FilterOperator(symbol: $0) != nil }),
            opIndex + 1 < positionals.count
        else { return got }
        let quoted = "\(clause) \(positionals[opIndex]) \(jsonValue(positionals[opIndex + 1]))"
        return got + ": quote each --where clause as one argument: --where "
            + MessageQuote.quoted(quoted, open: "'", close: "'")
    }

    /// `value` as the clause's VALUE must be written: unchanged when it is JSON already (`true`, `3`, `"red"`,
    /// `[1,2]`), else as a JSON string (`red` -> `"red"`), so the suggested clause is accepted as it stands.
    static func jsonValue(_ value: String) -> String {
        if (try? JSONValue.parse(value)) != nil { return value }
        return JSONValue.string(value).serializedString()
    }
}
