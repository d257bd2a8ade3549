import FirestoreFeed
import FirestoreTesting
import Foundation

// Record once against the emulator, then replay strictly, with no emulator (VCR modes: .once, .none, .all,
// .newEpisodes). The cassette's folder must exist.
let transport = try ReplayTransport(file: "fruits-cassette.json", mode: .once, live: CurlTransport())
let host = ProcessInfo.processInfo.environment["FIRESTORE_EMULATOR_HOST"] ?? "replay.invalid:80"  // any, replaying
let db = try Firestore.emulator(host: host, projectID: "demo-fruits", transport: transport)
let favourites = db.collection("fruits").whereField("isFavourite", isEqualTo: true).order(by: "name")
for try await snapshot in favourites.snapshots(source: .poll(.keys)) {   // one poll: runQuery, then batchGet
    print(transport.isRecording ? "recorded:" : "replayed:", snapshot.documents.map(\.documentID))
    break
}

// In a test: in memory, instant, the feed polling on a clock that never waits.
let replay = ReplayTransport(cassette: try Cassette(contentsOfFile: "fruits-cassette.json"),
                             options: .init(allowPlaybackRepeats: false, ordering: .session))
let offline = Firestore(database: try DatabaseID(projectID: "demo-fruits"), baseURL: "http://replay.invalid/v1/",
                        credentials: EmulatorOwnerCredentials(), transport: replay, isEmulator: true)
let pool = PollerPool(clock: ImmediateClock())  // polls without sleeping
do {
    for try await snapshot in pool.snapshots(of: offline.collection("fruits")
        .whereField("isFavourite", isEqualTo: true).order(by: "name").query) {
        print("in memory:", snapshot.documentChanges.map { "\($0.type) \($0.document.documentID)" })
    }
} catch {
    print(error)   // failed-precondition: ...: the second poll asks for more than was recorded
}
