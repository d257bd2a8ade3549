import FirestoreFeed
import FirestoreREST
import Foundation
import Observation
import Synchronization
import Testing

/// FirestoreQuery / FirestoreQueryObservable against a scripted snapshot source: the SDK's
/// FirestoreQueryObservableTests (4) and FirestoreQueryObservableLifetimeTests (3) of `firebase-semantics.md`
/// §3.9, with this library's fixes (the live strategy is used; `.raise` fails the array form too; no retain
/// cycle), plus listen errors and Observation.
@Suite(.timeLimit(.minutes(2))) struct FirestoreQueryTests {
    struct Fruit: Decodable, Equatable, Sendable {
        var name: String
    }

    /// Hands out listens of one scripted source and records the configuration of each registration.
    final class Registrations: Sendable {
        let source = ScriptedSnapshotSource()
        private let paths = Mutex<[String]>([])
        var recordedPaths: [String] { paths.withLock { $0 } }
        var count: Int { source.listenCount }

        var factory: FirestoreQueryObservable<[Fruit]>.SourceFactory {
            { [self] configuration in
                paths.withLock { $0.append(configuration.path) }
                return source
            }
        }
    }

    /// `fruits/apple {name: "Apple"}` and `fruits/broken {name: 42}`.
    static let appleAndBroken: [DocumentSnapshot] = {
        let root = "projects/p/databases/(default)/documents/fruits/"
        return [
            DocumentSnapshot(firestore: Fruits.db, document: Document(name: root + "apple", fields: ["name": "Apple"])),
            DocumentSnapshot(firestore: Fruits.db, document: Document(name: root + "broken", fields: ["name": 42])),
        ]
    }()

    static func arrayForm(_ strategy: DecodingFailureStrategy, _ registrations: Registrations)
        -> FirestoreQueryObservable<[Fruit]>
    {
        FirestoreQueryObservable(
            configuration: FirestoreQueryConfiguration(path: "fruits", decodingFailureStrategy: strategy),
            makeSource: registrations.factory)
    }

    static func resultForm(_ strategy: DecodingFailureStrategy, _ registrations: Registrations)
        -> FirestoreQueryObservable<Result<[Fruit], any Error>>
    {
        FirestoreQueryObservable(
            configuration: FirestoreQueryConfiguration(path: "fruits", decodingFailureStrategy: strategy),
            makeSource: { registrations.factory($0) })
    }

    static func fruits(_ result: Result<[Fruit], any Error>) -> [Fruit]? {
        if case .success(let fruits) = result { return fruits }
        return nil
    }

    // MARK: FirestoreQueryObservableTests

    /// 1. Array form, `.raise`: one undecodable document fails the list: no items, the error names it.
    @Test func arrayRaiseGivesNoItemsAndAnError() async throws {
        let registrations = Registrations()
        let query = Self.arrayForm(.raise, registrations)
        registrations.source.send(Self.appleAndBroken)
        #expect(await eventually { query.error != nil })
        #expect(query.value == [])
        #expect(String(describing: query.error).contains("fruits/broken"))
    }

    /// 2. Array form, `.ignore`: the decodable documents, and the failure as the error.
    @Test func arrayIgnoreKeepsTheDecodableDocuments() async throws {
        let registrations = Registrations()
        let query = Self.arrayForm(.ignore, registrations)
        registrations.source.send(Self.appleAndBroken)
        #expect(await eventually { query.error != nil })
        #expect(query.value == [Fruit(name: "Apple")])
        #expect((query.error as? DocumentDecodingFailure)?.documentPath == "fruits/broken")
    }

    /// 3. Created with `.ignore`, changed to `.raise`: re-registers, and the new strategy is honoured.
    @Test func strategyChangeReRegistersAndIsHonoured() async throws {
        let registrations = Registrations()
        let query = Self.arrayForm(.ignore, registrations)
        registrations.source.send(Self.appleAndBroken)
        #expect(await eventually { query.value == [Fruit(name: "Apple")] })
        query.configuration.decodingFailureStrategy = .raise
        #expect(registrations.count == 2)
        #expect(await eventually { registrations.source.isTerminated(0) })
        registrations.source.send(Self.appleAndBroken, on: 1)
        #expect(await eventually { query.value.isEmpty })
        #expect(query.error != nil)
        // .raise reports the document's failure, printed short (issue 17).
        #expect(
            (query.error as? DocumentDecodingFailure)?.description
                == "fruits/broken: name: expected String, found integerValue")
    }

    /// 4. Result form created with `.raise`, changed to `.ignore`: `.success([Apple])` with the error set.
    @Test func resultFormFollowsTheStrategyChange() async throws {
        let registrations = Registrations()
        let query = Self.resultForm(.raise, registrations)
        registrations.source.send(Self.appleAndBroken)
        #expect(await eventually { Self.fruits(query.value) == nil })
        #expect(query.error != nil)
        query.configuration.decodingFailureStrategy = .ignore
        registrations.source.send(Self.appleAndBroken, on: 1)
        #expect(await eventually { Self.fruits(query.value) == [Fruit(name: "Apple")] })
        #expect((query.error as? DocumentDecodingFailure)?.documentPath == "fruits/broken")
    }

    // MARK: FirestoreQueryObservableLifetimeTests

    /// 1. Array form: exactly one listener; releasing the object deallocates it and removes the listener once.
    @Test func releasingTheArrayFormRemovesItsListenerOnce() async throws {
        let registrations = Registrations()
        weak var released: FirestoreQueryObservable<[Fruit]>?
        do {
            let query = Self.arrayForm(.raise, registrations)
            released = query
            #expect(registrations.count == 1)
        }
        #expect(await eventually { released == nil })
        // Once: a stream's termination handler runs at most once (`AsyncStream`), so the count seen is final and
        // no wait would show more.
        #expect(await eventually { registrations.source.terminationCount(0) == 1 })
        #expect(registrations.count == 1)
    }

    /// 2. The same for the Result form (after it received a snapshot).
    @Test func releasingTheResultFormRemovesItsListenerOnce() async throws {
        let registrations = Registrations()
        weak var released: FirestoreQueryObservable<Result<[Fruit], any Error>>?
        do {
            let query = Self.resultForm(.ignore, registrations)
            released = query
            registrations.source.send(Self.appleAndBroken)
            #expect(await eventually { Self.fruits(query.value) == [Fruit(name: "Apple")] })
            #expect(registrations.count == 1)
        }
        #expect(await eventually { released == nil })
        #expect(await eventually { registrations.source.terminationCount(0) == 1 })
        #expect(registrations.count == 1)
    }

    /// 3. Changing the path removes the first registration (once) and makes exactly one new one, for the new
    /// path; releasing the object then removes the new one once.
    @Test func changingThePathReplacesTheListenerExactlyOnce() async throws {
        let registrations = Registrations()
        weak var released: FirestoreQueryObservable<[Fruit]>?
        do {
            let query = Self.arrayForm(.raise, registrations)
            released = query
            query.configuration.path = "vegetables"
            #expect(await eventually { registrations.source.terminationCount(0) == 1 })
            #expect(registrations.count == 2)
            #expect(registrations.recordedPaths == ["fruits", "vegetables"])
            #expect(registrations.source.terminationCount(1) == 0)
            #expect(query.configuration.path == "vegetables")
        }
        #expect(await eventually { released == nil })
        #expect(await eventually { registrations.source.terminationCount(1) == 1 })
        #expect(registrations.source.terminationCount(0) == 1)
        #expect(registrations.count == 2)
    }

    // MARK: Errors, Observation, the property wrapper

    /// A failed poll sets the error and keeps the items (field case B-10); a complete snapshot clears it. A
    /// listen that ends with an error turns the Result form into `.failure` and leaves the array form's items.
    @Test func listenErrorsKeepTheItems() async throws {
        let registrations = Registrations()
        let array = Self.arrayForm(.raise, registrations)
        let result = Self.resultForm(.raise, registrations)
        let apple = [Self.appleAndBroken[0]]
        registrations.source.send(apple, on: 0)
        registrations.source.send(apple, on: 1)
        #expect(await eventually { array.value.count == 1 && Self.fruits(result.value)?.count == 1 })
        let unavailable = FirestoreError(code: .unavailable, message: "poll failed", httpStatus: 503)
        registrations.source.send(.failure(unavailable), on: 0)
        #expect(await eventually { array.error != nil })
        #expect(array.value == [Fruit(name: "Apple")])
        registrations.source.send(apple, on: 0)
        #expect(await eventually { array.error == nil })

        let denied = FirestoreError(code: .permissionDenied, message: "denied", httpStatus: 403)
        for index in [0, 1] {
            registrations.source.send(.failure(denied), on: index)
            registrations.source.finish(index)
        }
        #expect(await eventually { Self.fruits(result.value) == nil })
        #expect((result.error as? FirestoreError)?.code == .permissionDenied)
        #expect(await eventually { (array.error as? FirestoreError)?.code == .permissionDenied })
        #expect(array.value == [Fruit(name: "Apple")])
    }

    @Test func observersHearOfNewValues() async throws {
        let registrations = Registrations()
        let query = Self.arrayForm(.ignore, registrations)
        let changed = Atomic<Int>(0)
        withObservationTracking {
            _ = query.value
        } onChange: {
            changed.add(1, ordering: .sequentiallyConsistent)
        }
        registrations.source.send(Self.appleAndBroken)
        #expect(await eventually { changed.load(ordering: .sequentiallyConsistent) == 1 })
        #expect(query.value == [Fruit(name: "Apple")])
    }

    /// The property wrapper in an ordinary class: a read-only value, and the configuration as projected value.
    @Test func propertyWrapperInAClass() async throws {
        final class Store {
            @FirestoreQuery var fruits: [Fruit]
            init(_ observable: FirestoreQueryObservable<[Fruit]>) { _fruits = FirestoreQuery(observable: observable) }
        }
        let registrations = Registrations()
        let store = Store(Self.arrayForm(.ignore, registrations))
        registrations.source.send(Self.appleAndBroken)
        #expect(await eventually { store.fruits == [Fruit(name: "Apple")] })
        #expect(store.$fruits.path == "fruits")
        #expect(store.$fruits.error != nil)
        store.$fruits.predicates = [.whereField("name", isEqualTo: "Apple")]
        #expect(registrations.count == 2)
        #expect(registrations.recordedPaths == ["fruits", "fruits"])
        registrations.source.send([Self.appleAndBroken[0]], on: 1)
        #expect(await eventually { store.$fruits.error == nil })
        #expect(store.fruits == [Fruit(name: "Apple")])
    }
}
