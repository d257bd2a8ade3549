import Dispatch
import FirestoreFeed

#if canImport(Glibc)
    import Glibc
#else
    import Darwin
#endif

let db = try Firestore.fromEnvironment(projectID: "demo-fruits")
// Run this in two processes: each prints its own shards' changes; kill one and the other takes its shards over.
let group = FeedGroup(db.collection("fruits"), name: "fruit-mailer", options: FeedGroupOptions(shards: 2))
// SIGTERM (a deploy, systemd, Kubernetes) or Ctrl-C leaves the group: acknowledged checkpoints are written and the
// leases released, so another member takes the shards at once instead of after a lease length.
let stops = [SIGTERM, SIGINT].map { signalNumber in
    signal(signalNumber, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .main)  // main: where `group` lives
    source.setEventHandler { Task { await group.leave() } }
    source.resume()
    return source
}
do {
    for try await shard in group.snapshots {   // asking for the next one acknowledges this one
        for change in shard.snapshot.documentChanges {
            print("shard \(shard.shard) generation \(shard.generation): \(change.type) \(change.document.documentID)")
        }
    }
    print("left the feed group")
} catch {
    print("the feed group ended: \(error)")
}
