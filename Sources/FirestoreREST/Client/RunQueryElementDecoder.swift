import FirestoreWire

/// One runQuery stream element (REST `RunQueryResponse`) decoded straight from the body's bytes, with no
/// `JSONValue` in between (issue 37): the members `document`, `readTime`, `skippedResults` (a JSON number),
/// `transaction` and `done` (a boolean), each at most once, in any order.
///
/// It takes only the common shape and gives up (`nil`) on everything else, valid or not: an `error` element,
/// unknown members, a value or document ``Document/decodeREST(_:)`` leaves, malformed JSON. Then the element's
/// bytes go through `JSONValue.parse` and `Firestore.addRunQueryElement`, so the result and every error are the
/// tree path's (``Firestore/decodeRunQuery(body:)``).
package struct RunQueryElementDecoder {
    package var document: Document?
    package var readTime: Timestamp?
    package var skippedResults: Int?
    package var transaction: String?

    /// Decodes the element that starts at `reader.index`, leaving `reader.index` just after it; `nil` when the
    /// element is not of the common shape.
    /// - Complexity: O(n) in the element's bytes.
    package static func decode(_ reader: inout RESTByteReader) -> RunQueryElementDecoder? {
        guard var more = reader.beginObject() else { return nil }
        var element = RunQueryElementDecoder()
        var seenDone = false
        while more {
            guard let member = reader.memberName() else { return nil }
            switch member.count {
            case 4 where reader.matches(member, "done") && !seenDone:
                guard reader.consume("true") || reader.consume("false") else { return nil }
                seenDone = true
            case 8 where reader.matches(member, "document") && element.document == nil:
                guard let document = Document.decodeREST(&reader) else { return nil }
                element.document = document
            case 8 where reader.matches(member, "readTime") && element.readTime == nil:
                // `null` would be the tree path's error: only a string is taken.
                guard case .some(.some(let time)) = Document.decodeTime(&reader) else { return nil }
                element.readTime = time
            case 11 where reader.matches(member, "transaction") && element.transaction == nil:
                guard let text = reader.string(), !text.isEmpty else { return nil }
                element.transaction = text
            case 14 where reader.matches(member, "skippedResults") && element.skippedResults == nil:
                // An int32 count: a non-negative integer-shaped number up to Int32.max.
                guard let number = reader.number(), number.isInteger, let count = reader.integer(number.range),
                    count >= 0, count <= Int64(Int32.max)
                else { return nil }
                element.skippedResults = Int(count)
            default: return nil
            }
            guard let next = reader.nextMember() else { return nil }
            more = next
        }
        return element
    }

    /// Adds this element to `result` as `Firestore.addRunQueryElement` adds its tree; `false`, with `result`
    /// unchanged, where that would throw (the skipped count overflowing).
    package func add(to result: inout RunQueryResponse) -> Bool {
        var skipped = result.skippedResults
        if let skippedResults {
            let (total, overflow) = skipped.addingReportingOverflow(skippedResults)
            guard !overflow else { return false }
            skipped = total
        }
        if let readTime, result.readTime.map({ readTime > $0 }) ?? true { result.readTime = readTime }
        if let transaction { result.transaction = transaction }
        result.skippedResults = skipped
        if let document { result.documents.append(document) }
        return true
    }
}
