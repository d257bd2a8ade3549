import FirestoreWire
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Builds a Firestore data bundle from document and query snapshots, byte for byte as the Node SDK's
/// `BundleBuilder` builds it, so that a web or mobile client loads a bundle a Swift server made
/// (`loadBundle(...)`, then `namedQuery(name)`). Make one with ``Firestore/bundle(_:)``.
///
/// ```swift
/// let bundle = db.bundle("fruits-of-the-day")
/// try bundle.add(try await db.getAll([db.document("fruits/apple")])[0])
/// try bundle.add("red-fruits", try await db.collection("fruits").whereField("color", isEqualTo: "red").getDocuments())
/// let data = bundle.build()                               // serve it from a CDN
/// ```
///
/// The format (Firestore's `bundle.proto`; Firebase, "Load data bundles"): length-prefixed elements, each the
/// decimal count of its UTF-8 bytes followed by one JSON object in protobuf.js's JSON form : first
/// `{"metadata": {id, createTime, version: 1, totalDocuments, totalBytes}}` (`createTime` the newest read time added,
/// `totalBytes` the bytes after this element), then each named query in the order added
/// (`{"namedQuery": {name, bundledQuery: {parent, structuredQuery, limitType}, readTime}}`, the query as written,
/// limit-to-last unflipped, with `limitType` `"LAST"`), then each document in the order first added: its
/// `{"documentMetadata": {name, readTime, exists, queries}}` and, when it exists, its `{"document": {...}}`.
///
/// A document added twice is kept once: the snapshot with the newer read time wins, in the first one's place, and
/// the names of the queries that returned it accumulate. Map fields are written in `Object.keys` order: array-index
/// names first, then the rest in UTF-8 byte order (Node writes them in the order the server sent them).
///
/// Safe to share between tasks; the builder can be built any number of times, also after further additions.
public final class BundleBuilder: Sendable {
    /// The bundle's ID (Node `bundleId`), written into its metadata.
    public let bundleID: String
    private let state = Mutex(State())

    private struct State {
        var documents: [String: Bundled] = [:]
        var documentOrder: [String] = []
        var queries: [String: BundleJSON] = [:]
        var queryOrder: [String] = []
        var latestReadTime = Timestamp(uncheckedSeconds: 0, nanos: 0)
    }

    /// One document's metadata and contents.
    private struct Bundled {
        var name: String
        var readTime: Timestamp
        var document: Document?
        var queries: [String]
    }

    init(bundleID: String) {
        self.bundleID = bundleID
    }

    /// Adds a document snapshot (Node `add(documentSnapshot)`); a missing document is bundled as missing.
    ///
    /// The read time is the snapshot's ``DocumentSnapshot/readTime``; a snapshot without one (a plain
    /// ``DocumentReference/getDocument()``, a GET whose response carries none) counts as read at its `updateTime`,
    /// the latest time its contents are known to hold.
    /// - Returns: this builder, for chaining.
    /// - Throws: ``FirestoreError`` `.invalidArgument` for a missing document without a read time.
    /// - Complexity: O(1) amortized.
    @discardableResult
    public func add(_ document: DocumentSnapshot) throws(FirestoreError) -> BundleBuilder {
        let readTime = try Self.readTime(of: document, fallback: nil)
        state.withLock { Self.add(document, readTime: readTime, query: nil, to: &$0) }
        return self
    }

    /// Adds a named query and its documents (Node `add(queryName, querySnapshot)`): a client that loads the bundle
    /// runs `namedQuery(queryName)` from its cache. Each document counts as read at its own read time, else the
    /// snapshot's.
    /// - Returns: this builder, for chaining.
    /// - Throws: ``FirestoreError`` `.invalidArgument`: `"Query name conflict: NAME has already been added."` (the
    ///   Node SDK's message); a snapshot without a read time; a query a bundle cannot hold (a vector query) or one
    ///   that is invalid.
    /// - Complexity: O(n) for n documents.
    @discardableResult
    public func add(_ queryName: String, _ querySnapshot: QuerySnapshot) throws(FirestoreError) -> BundleBuilder {
        guard let readTime = querySnapshot.readTime else {
            throw .invalidArgument("cannot bundle query \(queryName): its snapshot has no read time")
        }
        let query = querySnapshot.query
        var unflipped = query
        unflipped.limitType = .first
        let bundledQuery: BundleJSON = .object([
            ("parent", .string(query.firestore.database.resourceName(of: try query.parentPath()))),
            ("structuredQuery", try BundleJSON.structuredQuery(unflipped.structuredQuery())),
            ("limitType", .string(query.limitType == .last ? "LAST" : "FIRST")),
        ])
        let named: BundleJSON = .object([
            ("name", .string(queryName)), ("bundledQuery", bundledQuery), ("readTime", .timestamp(readTime)),
        ])
        var times: [Timestamp] = []
        for document in querySnapshot.documents {
            times.append(try Self.readTime(of: document, fallback: readTime))
        }
        try state.withLock { state throws(FirestoreError) in
            guard state.queries[queryName] == nil else {
                throw .invalidArgument("Query name conflict: \(queryName) has already been added.")
            }
            state.queries[queryName] = named
            state.queryOrder.append(queryName)
            for (document, time) in zip(querySnapshot.documents, times) {
                Self.add(document, readTime: time, query: queryName, to: &state)
            }
            if readTime > state.latestReadTime { state.latestReadTime = readTime }
        }
        return self
    }

    /// The bundle's bytes (Node `build()`): the elements described above, each prefixed by its length in bytes.
    /// - Complexity: O(n) in the size of the bundle.
    public func build() -> Data {
        let state = state.withLock { $0 }
        var body: [UInt8] = []
        for name in state.queryOrder {
            if let query = state.queries[name] { Self.append(.object([("namedQuery", query)]), to: &body) }
        }
        for key in state.documentOrder {
            guard let bundled = state.documents[key] else { continue }
            var metadata: [(String, BundleJSON)] = [
                ("name", .string(bundled.name)), ("readTime", .timestamp(bundled.readTime)),
                ("exists", .bool(bundled.document != nil)),
            ]
            if !bundled.queries.isEmpty { metadata.append(("queries", .array(bundled.queries.map(BundleJSON.string)))) }
            Self.append(.object([("documentMetadata", .object(metadata))]), to: &body)
            if let document = bundled.document {
                Self.append(.object([("document", .document(document))]), to: &body)
            }
        }
        let metadata: BundleJSON = .object([
            (
                "metadata",
                .object([
                    ("id", .string(bundleID)), ("createTime", .timestamp(state.latestReadTime)),
                    ("version", .integer(1)), ("totalDocuments", .integer(state.documentOrder.count)),
                    ("totalBytes", .string(String(body.count))),
                ])
            )
        ])
        var bundle: [UInt8] = []
        Self.append(metadata, to: &bundle)
        bundle.append(contentsOf: body)
        return Data(bundle)
    }

    /// Appends one element: its length in UTF-8 bytes, in decimal, then its JSON.
    private static func append(_ element: BundleJSON, to output: inout [UInt8]) {
        let bytes = element.bytes
        output.append(contentsOf: String(bytes.count).utf8)
        output.append(contentsOf: bytes)
    }

    /// Keeps the newer of two snapshots of a document in the first one's place, and the union of their queries.
    private static func add(_ snapshot: DocumentSnapshot, readTime: Timestamp, query: String?, to state: inout State) {
        let key = snapshot.reference.resourceName
        var bundled: Bundled
        if let original = state.documents[key] {
            bundled = original
            if original.readTime < readTime {
                bundled.readTime = readTime
                bundled.document = snapshot.document
            }
        } else {
            bundled = Bundled(name: key, readTime: readTime, document: snapshot.document, queries: [])
            state.documentOrder.append(key)
        }
        if let query { bundled.queries.append(query) }
        state.documents[key] = bundled
        if readTime > state.latestReadTime { state.latestReadTime = readTime }
    }

    private static func readTime(of snapshot: DocumentSnapshot, fallback: Timestamp?) throws(FirestoreError)
        -> Timestamp
    {
        if let time = snapshot.readTime ?? fallback ?? snapshot.updateTime { return time }
        throw .invalidArgument(
            "cannot bundle \(snapshot.reference.path): a missing document without a read time (read it with getAll)")
    }
}

extension Firestore {
    /// A new, empty ``BundleBuilder`` whose bundle is named `bundleID` (Node `firestore.bundle(name)`).
    public func bundle(_ bundleID: String) -> BundleBuilder { BundleBuilder(bundleID: bundleID) }
}
