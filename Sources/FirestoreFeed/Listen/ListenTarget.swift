import FirestoreWire

/// A `google.firestore.v1.Target` (`google/firestore/v1/firestore.proto`, message `Target`): what one
/// target of a Listen stream watches, where it resumes, and the ID that the stream's responses name it by.
///
/// Field numbers: oneof `target_type` { `QueryTarget query = 2`, `DocumentsTarget documents = 3` }, oneof
/// `resume_type` { `bytes resume_token = 4`, `google.protobuf.Timestamp read_time = 11` },
/// `int32 target_id = 5`, `google.protobuf.Int32Value expected_count = 12` (`bool once = 6` is never sent: the feed removes its
/// targets itself);
/// `QueryTarget` { `string parent = 1`, oneof `query_type` { `StructuredQuery structured_query = 2` } };
/// `DocumentsTarget` { `repeated string documents = 2` }.
package struct ListenTarget: Sendable, Hashable {
    /// What the target watches.
    package enum Kind: Sendable, Hashable {
        /// A `QueryTarget`: the parent resource name (`projects/p/databases/d/documents` or a document below
        /// it) and a serialized `StructuredQuery` message.
        case query(parent: String, structuredQuery: [UInt8])
        /// A `DocumentsTarget`: full document resource names
        /// (`projects/p/databases/d/documents/fruits/apple`).
        case documents([String])
    }

    /// Where a re-added target resumes (oneof `resume_type`).
    package enum ResumePoint: Sendable, Hashable {
        /// `resume_token`: a token from an earlier `TargetChange` of an identical target.
        case resumeToken([UInt8])
        /// `read_time`: changes after this instant; the client must know the state at it.
        case readTime(Timestamp)
    }

    /// What the target watches.
    package var kind: Kind
    /// The target's ID on the stream; 0 lets the server assign one (then every target must use 0).
    package var targetID: Int32
    /// Where to resume, or `nil` for the whole current result first.
    package var resumePoint: ResumePoint?
    /// The number of documents that matched at the resume point; a value above 0 with a resume point asks
    /// for `ExistenceFilter.unchanged_names` (a bloom filter) in mismatch responses. `nil` leaves it out.
    package var expectedCount: Int32?

    /// A target from its parts.
    package init(
        kind: Kind, targetID: Int32, resumePoint: ResumePoint? = nil,
        expectedCount: Int32? = nil
    ) {
        self.kind = kind
        self.targetID = targetID
        self.resumePoint = resumePoint
        self.expectedCount = expectedCount
    }

    /// A query target for `query`: its parent resource name and its StructuredQuery as
    /// ``Query/structuredQueryProtobuf()`` encodes it (the same rules as `runQuery`). For
    /// ``Query/LimitType/last`` the orders are flipped on the wire as for `runQuery`, so the documents of the
    /// target are the last N and their order must be reversed by the reader, as ``QueryRepresentable/runQuery(readTime:)`` does.
    /// - Throws: ``FirestoreError`` `.invalidArgument` as ``Query/structuredQuery()``, before anything is sent.
    package init(
        query: some QueryRepresentable, targetID: Int32, resumePoint: ResumePoint? = nil,
        expectedCount: Int32? = nil
    ) throws(FirestoreError) {
        let query = query.query
        let parent = query.firestore.database.resourceName(of: try query.parentPath())
        self.init(
            kind: .query(parent: parent, structuredQuery: try query.structuredQueryProtobuf()), targetID: targetID,
            resumePoint: resumePoint, expectedCount: expectedCount)
    }

    /// A query target for the query `identity` names, from the bytes it holds (``QueryIdentity/structuredQueryProtobuf``):
    /// adding the target again (after a reconnect) encodes nothing.
    package init(
        query identity: QueryIdentity, targetID: Int32, resumePoint: ResumePoint? = nil, expectedCount: Int32? = nil
    ) {
        self.init(
            kind: .query(parent: identity.parent, structuredQuery: identity.structuredQueryProtobuf),
            targetID: targetID, resumePoint: resumePoint, expectedCount: expectedCount)
    }

    /// A documents target for full document resource names (duplicates are elided by the server).
    package init(
        documents names: [String], targetID: Int32, resumePoint: ResumePoint? = nil,
        expectedCount: Int32? = nil
    ) {
        self.init(
            kind: .documents(names), targetID: targetID, resumePoint: resumePoint, expectedCount: expectedCount)
    }

    /// Writes the `Target` fields in field-number order; `target_id` 0 is left out as proto3
    /// does, a resume token is written even when empty (oneof members carry presence).
    /// - Complexity: O(n) in the size of the target.
    package func writeProtobuf(to writer: inout ProtobufWriter) {
        switch kind {
        case .query(let parent, let structuredQuery):
            writer.writeMessageField(2) { target in
                if !parent.isEmpty { target.writeStringField(1, parent) }
                target.writeBytesField(2, structuredQuery)
            }
        case .documents(let names):
            writer.writeMessageField(3) { target in
                for name in names { target.writeStringField(2, name) }
            }
        }
        if case .resumeToken(let token)? = resumePoint { writer.writeBytesField(4, token) }
        if targetID != 0 { writer.writeInt32Field(5, targetID) }
        if case .readTime(let time)? = resumePoint { writer.writeMessageField(11) { time.writeProtobuf(to: &$0) } }
        if let expectedCount {
            writer.writeMessageField(12) { wrapper in
                if expectedCount != 0 { wrapper.writeInt32Field(1, expectedCount) }
            }
        }
    }
}
