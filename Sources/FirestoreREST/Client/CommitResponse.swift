import FirestoreWire

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The result of one commit (REST `CommitResponse`: `{"writeResults": [...], "commitTime": ...}`).
package struct CommitResponse: Sendable, Hashable {
    /// One result per write, in request order.
    package var writeResults: [WriteResult]
    /// When the commit was applied; `nil` for an empty commit, which the server answers with `{}`.
    package var commitTime: Timestamp?

    /// One `updateTime` per write, in request order (`nil` for a delete).
    package var updateTimes: [Timestamp?] { writeResults.map(\.updateTime) }

    package init(writeResults: [WriteResult], commitTime: Timestamp?) {
        self.writeResults = writeResults
        self.commitTime = commitTime
    }

    /// Decodes the response to a commit of `writeCount` writes.
    ///
    /// Each `writeResults` element is `{}` (a delete) or `{"updateTime", "transformResults": [Value...]}`; its
    /// `writeTime` is its `updateTime` or else the `commitTime` (as the Node SDK's `WriteBatch.commit`).
    /// - Throws: ``FirestoreError`` `.internal` naming the member and saying that the commit was applied when
    ///   the response does not hold exactly one result per write, a time is not RFC 3339, a transform result is
    ///   not a Value, or a result has no time at all.
    package init(decoding json: JSONValue, writeCount: Int) throws(FirestoreError) {
        func malformed(_ what: String) -> FirestoreError {
            FirestoreError(
                code: .internal, message: "commit response (the commit was applied): \(what)")
        }
        let kind = WriteResultElement.kind
        func time(_ value: JSONValue?, _ what: String) throws(FirestoreError) -> Timestamp? {
            guard let value else { return nil }
            guard case .string(let text) = value else { throw malformed("\(what) is \(kind(value))") }
            do {
                return try Timestamp(rfc3339: text)
            } catch {
                throw malformed("\(what): \(error.message)")
            }
        }
        guard case .object = json else { throw malformed("the body is \(kind(json)), not an object") }
        let commitTime = try time(json["commitTime"], "commitTime")
        let elements: [JSONValue]
        switch json["writeResults"] {
        case nil: elements = []
        case .array(let array)?: elements = array
        case let other?: throw malformed("writeResults is \(kind(other))")
        }
        guard elements.count == writeCount else {
            throw malformed("\(elements.count) write results for \(writeCount) writes")
        }
        var results: [WriteResult] = []
        results.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let what = "writeResults[\(index)]"
            let (updateTime, transforms) = try WriteResultElement.decode(element, what: what, malformed)
            guard let writeTime = updateTime ?? commitTime else {
                throw malformed("\(what) has no updateTime and the response no commitTime")
            }
            results.append(WriteResult(updateTime: updateTime, writeTime: writeTime, transformResults: transforms))
        }
        self.init(writeResults: results, commitTime: commitTime)
    }
}
