import FirestoreREST

/// `--where`, `--order-by` and `--limit`, shared by `watch` and `query`.
struct QueryOptions {
    static let valueFlags: Set<String> = ["--where", "--order-by", "--limit"]
    static let help = """
          --where 'FIELD OP VALUE'   filter (repeatable, ANDed); OP: == != < <= > >= array-contains
                                     array-contains-any in not-in; VALUE is JSON (3 is an integer,
                                     3.0 a double, "x" a string, [1,2] an array)
          --order-by FIELD[:desc]    order (repeatable); ascending unless :desc
          --limit N                  at most N documents
        """

    let clauses: [WhereClause]
    let orders: [QueryOrder]
    let limit: Int?

    /// - Throws: ``CLIError/usage(_:help:)`` naming the bad clause, order or limit.
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
            do {
                let field = fieldText == "__name__" ? FieldPath.documentID : try FieldPath(quoted: fieldText)
                orders.append(QueryOrder(field: field, descending: descending))
            } catch {
                throw .usage("--order-by \"\(text)\": \(error.message)", help: help)
            }
        }
        var limit: Int?
        if let text = reader.value("--limit") {
            guard let number = Int(text), number >= 0, number <= Int(Int32.max) else {
                throw .usage("--limit \"\(text)\": expected a whole number from 0 to \(Int32.max)", help: help)
            }
            limit = number
        }
        self.clauses = clauses
        self.orders = orders
        self.limit = limit
    }

    /// The query over `collectionPath` with these options.
    func query(_ firestore: Firestore, collectionPath: String) -> Query {
        var query = firestore.collection(collectionPath).query
        for clause in clauses { query = query.whereField(clause.field, clause.op, clause.value) }
        for order in orders { query = query.order(by: order.field, descending: order.descending) }
        if let limit { query = query.limit(to: limit) }
        return query
    }
}
