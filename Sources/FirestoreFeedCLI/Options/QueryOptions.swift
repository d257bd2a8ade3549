import FirestoreREST

/// The query options shared by `watch`, `query` and `count`: filters, orders, cursors, projection, offset,
/// limits and the collection-group switch.
struct QueryOptions {
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

    let clauses: [WhereClause]
    let orders: [QueryOrder]
    let limit: (count: Int, last: Bool)?
    let cursors: [(flag: String, values: [FirestoreValue])]
    let selection: [FieldPath]?
    let offset: Int?
    let collectionGroup: Bool

    /// - Throws: ``CLIError/usage(_:help:)`` naming the bad option and value.
    init(_ reader: ArgumentReader, help: String) throws(CLIError) {
        var clauses: [WhereClause] = []
        for text in reader.all("--where") {
            do {
                clauses.append(try WhereClause(parsing: text))
            } catch {
                throw .usage(error.message, help: help)
            }
        }
        var orders: [QueryOrder] = []
        for text in reader.all("--order-by") {
            var fieldText = text
            var descending = false
            if text.hasSuffix(":desc") {
                fieldText = String(text.dropLast(5))
                descending = true
            } else if text.hasSuffix(":asc") {
                fieldText = String(text.dropLast(4))
            }
            if FieldPathArgument.hasUnquoted(in: fieldText, where: { $0 == ":" || $0.properties.isWhitespace }) {
                throw .usage(
                    "--order-by \"\(text)\": use FIELD, FIELD:asc or FIELD:desc (a field name with ':' or spaces goes in backticks)",
                    help: help)
            }
            do {
                orders.append(QueryOrder(field: try FieldPathArgument.fieldPath(fieldText), descending: descending))
            } catch {
                throw .usage("--order-by \"\(text)\": \(error.message)", help: help)
            }
        }
        let first = try Self.count(reader, "--limit", help: help)
        let last = try Self.count(reader, "--limit-to-last", help: help)
        if first != nil, last != nil {
            throw .usage("--limit and --limit-to-last cannot be combined", help: help)
        }
        if last != nil, orders.isEmpty {
            throw .usage("--limit-to-last needs at least one --order-by", help: help)
        }
        limit = first.map { ($0, false) } ?? last.map { ($0, true) }
        var cursors: [(String, [FirestoreValue])] = []
        for flag in ["--start-at", "--start-after", "--end-at", "--end-before"] {
            guard let text = reader.value(flag) else { continue }
            let parsed: JSONValue
            do {
                parsed = try JSONValue.parse("[" + text + "]")
            } catch {
                throw .usage("\(flag) \"\(text)\": not comma-separated JSON values (\(error))", help: help)
            }
            guard case .array(let values) = parsed, !values.isEmpty else {
                throw .usage("\(flag) \"\(text)\": expected comma-separated JSON values", help: help)
            }
            if let literal = WhereClause.oversizedIntegerLiteral(in: text) {
                throw .usage("\(flag) \"\(text)\": the integer \(literal) does not fit in 64 bits", help: help)
            }
            cursors.append((flag, values.map(FirestoreValue.init(plainJSON:))))
        }
        if reader.value("--start-at") != nil, reader.value("--start-after") != nil {
            throw .usage("--start-at and --start-after cannot be combined", help: help)
        }
        if reader.value("--end-at") != nil, reader.value("--end-before") != nil {
            throw .usage("--end-at and --end-before cannot be combined", help: help)
        }
        if let text = reader.value("--select") {
            do {
                selection = try FieldPathArgument.splitFields(text).map { (field) throws(FirestoreError) in
                    try FieldPathArgument.fieldPath(field)
                }
            } catch {
                throw .usage("--select \"\(text)\": \(error.message)", help: help)
            }
        } else {
            selection = nil
        }
        self.clauses = clauses
        self.orders = orders
        self.cursors = cursors
        self.offset = try Self.count(reader, "--offset", help: help)
        self.collectionGroup = reader.has("--collection-group")
    }

    private static func count(_ reader: ArgumentReader, _ flag: String, help: String) throws(CLIError) -> Int? {
        guard let text = reader.value(flag) else { return nil }
        guard let number = Int(text), number >= 0, number <= Int(Int32.max) else {
            throw .usage("\(flag) \"\(text)\": expected a whole number from 0 to \(Int32.max)", help: help)
        }
        return number
    }

    /// Checks, before any connection is made (and before any note is printed), that these options make a query
    /// over `collectionPath` that can be sent: the path, the cursors against the orders, the limits.
    /// - Throws: ``CLIError/usage(_:help:)`` with the query's own message.
    func check(collectionPath: String, help: String) throws(CLIError) {
        do {
            let offline = Firestore(
                database: try DatabaseID(projectID: "check"), baseURL: "http://check.invalid/v1/",
                credentials: NoCredentials(), transport: CurlTransport(), isEmulator: true)
            _ = try query(offline, collectionPath: collectionPath).runQueryBody()
        } catch {
            throw .usage(error.message, help: help)
        }
    }

    /// The query over `collectionPath` (a collection ID with `--collection-group`) with these options.
    func query(_ firestore: Firestore, collectionPath: String) -> Query {
        var query =
            collectionGroup ? firestore.collectionGroup(collectionPath) : firestore.collection(collectionPath).query
        for clause in clauses { query = query.whereField(clause.field, clause.op, clause.value) }
        for order in orders { query = query.order(by: order.field, descending: order.descending) }
        for (flag, values) in cursors {
            switch flag {
            case "--start-at": query = query.start(at: values)
            case "--start-after": query = query.start(after: values)
            case "--end-at": query = query.end(at: values)
            default: query = query.end(before: values)
            }
        }
        if let selection { query = query.select(fields: selection) }
        if let offset { query = query.offset(offset) }
        if let limit { query = limit.last ? query.limit(toLast: limit.count) : query.limit(to: limit.count) }
        return query
    }
}
