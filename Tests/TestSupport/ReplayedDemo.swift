import FirestoreFeed
import FirestoreREST
import FirestoreTesting
import Foundation

/// The demo's session as `Scripts/record` recorded it from the real emulator (`Recordings/demo.json`, polling;
/// `Recordings/demo-listen.json`, the Listen stream): its client on a replayed cassette, its seeds and writes, and
/// the changes and lists the feed gives for them. Shared by the tests that replay it.
package enum ReplayedDemo {
    /// The repository's `Recordings` folder.
    package static let recordings = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Recordings")

    /// One document change, as the tests compare it.
    package struct Change: Equatable, Sendable, CustomStringConvertible {
        package var type: DocumentChangeType
        package var id: String
        package var oldIndex: Int?
        package var newIndex: Int?
        package var description: String {
            "\(type) \(id) \(oldIndex.map(String.init) ?? "nil")->\(newIndex.map(String.init) ?? "nil")"
        }

        package init(type: DocumentChangeType, id: String, oldIndex: Int?, newIndex: Int?) {
            self.type = type
            self.id = id
            self.oldIndex = oldIndex
            self.newIndex = newIndex
        }

        package init(_ change: DocumentChange) {
            self.init(
                type: change.type, id: change.document.documentID, oldIndex: change.oldIndex,
                newIndex: change.newIndex)
        }
    }

    /// The cassette `name` of `Recordings/`.
    package static func cassette(_ name: String) throws -> Cassette {
        try Cassette(contentsOfFile: recordings.appendingPathComponent(name).path)
    }

    /// A client of project `projectID` on `transport` (the emulator's owner credentials, as recorded).
    package static func client(_ transport: any HTTPTransport, projectID: String) throws -> Firestore {
        Firestore(
            database: try DatabaseID(projectID: projectID), baseURL: "http://replay.invalid/v1/",
            credentials: EmulatorOwnerCredentials(), transport: transport, isEmulator: true)
    }

    /// The demo's query: favourites ordered by name.
    package static let favourites: @Sendable (Firestore) -> Query = { db in
        db.collection("fruits").whereField("isFavourite", isEqualTo: true).order(by: "name")
    }

    /// The demo's clean-up (a list, empty as recorded) and its four seeds. Returns whether the list was empty.
    package static func seed(_ db: Firestore) async throws -> Bool {
        let fruits = db.collection("fruits")
        let empty = try await fruits.listDocuments().isEmpty
        let seeds: [(String, [String: FieldValue])] = [
            ("apple", ["name": "Apple", "color": "red", "isFavourite": true, "calories": 52]),
            ("banana", ["name": "Banana", "color": "yellow", "isFavourite": true, "calories": 89]),
            ("cherry", ["name": "Cherry", "color": "red", "isFavourite": false, "calories": 50]),
            ("date", ["name": "Date", "color": "brown", "isFavourite": true, "calories": 282]),
        ]
        for (id, fields) in seeds { try await fruits.document(id).setData(fields) }
        return empty
    }

    /// The demo's writes after the first snapshot, in order: add fig, modify apple, rename banana, unfavourite
    /// date, delete fig.
    package static func writes(_ db: Firestore) -> [@Sendable () async throws -> Void] {
        [
            {
                try await db.document("fruits/fig").setData([
                    "name": "Fig", "color": "purple", "isFavourite": true, "calories": 74,
                ])
            },
            { try await db.document("fruits/apple").updateData(["color": "green"]) },
            { try await db.document("fruits/banana").updateData(["name": "Plantain"]) },
            { try await db.document("fruits/date").updateData(["isFavourite": false]) },
            { try await db.document("fruits/fig").delete() },
        ]
    }

    /// The changes of the six snapshots (the first, then one per write).
    package static let expectedChanges: [[Change]] = [
        [
            Change(type: .added, id: "apple", oldIndex: nil, newIndex: 0),
            Change(type: .added, id: "banana", oldIndex: nil, newIndex: 1),
            Change(type: .added, id: "date", oldIndex: nil, newIndex: 2),
        ],
        [Change(type: .added, id: "fig", oldIndex: nil, newIndex: 3)],
        [Change(type: .modified, id: "apple", oldIndex: 0, newIndex: 0)],
        [Change(type: .modified, id: "banana", oldIndex: 1, newIndex: 3)],
        [Change(type: .removed, id: "date", oldIndex: 1, newIndex: nil)],
        [Change(type: .removed, id: "fig", oldIndex: 1, newIndex: nil)],
    ]

    /// The document IDs of the six snapshots.
    package static let expectedLists: [[String]] = [
        ["apple", "banana", "date"], ["apple", "banana", "date", "fig"], ["apple", "banana", "date", "fig"],
        ["apple", "date", "fig", "banana"], ["apple", "fig", "banana"], ["apple", "banana"],
    ]

    /// What a feed gave: each snapshot's changes, document IDs and read time.
    package struct Taken {
        package var changes: [[Change]] = []
        package var lists: [[String]] = []
        package var readTimes: [Timestamp] = []
    }

    /// Takes the first snapshot of `feed`, then makes each write and takes one snapshot after it.
    /// - Throws: the feed's error, or `cancelled` when it ends early.
    package static func run<Feed: AsyncSequence>(_ feed: Feed, writes: [@Sendable () async throws -> Void]) async throws
        -> Taken where Feed.Element == QuerySnapshot
    {
        var iterator = feed.makeAsyncIterator()
        var taken = Taken()
        func take() async throws {
            guard let snapshot = try await iterator.next() else {
                throw FirestoreError(code: .cancelled, message: "ended")
            }
            taken.changes.append(snapshot.documentChanges.map(Change.init))
            taken.lists.append(snapshot.documents.map(\.documentID))
            if let time = snapshot.readTime { taken.readTimes.append(time) }
        }
        try await take()
        for write in writes {
            try await write()
            try await take()
        }
        return taken
    }
}
