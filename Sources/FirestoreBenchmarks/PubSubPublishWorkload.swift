import FirestoreFeed
import FirestorePubSub
import FirestoreREST
import Foundation
import Synchronization

/// `pubsub-publish` (issue 38): publishing change messages to the Pub/Sub emulator (`PUBSUB_EMULATOR_HOST`).
///
/// - **Rate** (`pubsub-publish`, `pubsub-publish-grpc`, `pubsub-publish-grpc-vs-rest` and their `-process` rows): the
///   same `messages` change messages (``PubSubChangeMessage`` of `mirror-load`'s ~1 KB documents: REST-document JSON
///   data, the four attributes, each its own ordering key, the document's name) written to a file once, then
///   published to a fresh topic by `PubSubPublisher.publish(_:to:)` over REST, by the same over gRPC
///   (``PubSubProtocol``), and by Google's Python publisher (`Scripts/bench-pubsub-publisher`: `PublisherClient`
///   (gRPC) with message ordering, each message with its ordering key, every future waited for), each in a child
///   process of its own, in turn, `repeats` times each after one warm-up each. `pubsub-publish` (REST) and
///   `pubsub-publish-grpc` are against Python, `pubsub-publish-grpc-vs-rest` is gRPC against REST: the time inside each
///   process from the first publish call to the last acknowledgement (reading the file and start-up excluded); the
///   `-process` rows are the whole process, launch to exit (Python's interpreter start-up and imports, this binary's
///   start-up, the file read). The target: this package at least as fast as Python (time ratio <= 1x, rate ratio
///   >= 1x).
/// - **Latency** (`pubsub-latency`, needs `FIRESTORE_EMULATOR_HOST` too): a writer commits one ~200-byte document a
///   commit at `rate` commits a second (`--publish-rate`, default 25: the emulator takes about 30 commits a second with
///   a Listen target on 2 shared cores; at 100 its backlog, not the feed, makes the latency) for `seconds` (each a new
///   document, each commit started at its time) while `collection.publish(to:with:checkpoint:
///   key:)` runs (Listen, SQLite checkpoint) and a REST pull loop on an ordered subscription receives the messages. For
///   each document: publish-accepted time (the wall clock when `onPublished` runs: every message of its snapshot
///   accepted by the emulator) minus its commit time (its `updateTime`, the Firestore emulator's clock: this machine's
///   wall clock), and received time (the wall clock when the pull answer holding it arrived) minus the same commit
///   time; p50 and p99 of each, and the snapshot's read time minus the commit time (what Listen adds).
enum PubSubPublishWorkload {
    static let childFlag = "--pubsub-publish-child"
    static let project = "bench-pubsub"

    static func run(messages count: Int, repeats: Int, rate: Int, seconds: Double) throws -> [Measurement] {
        guard let host = pubSubHost() else {
            print("pubsub-publish: skipped (PUBSUB_EMULATOR_HOST is not set; Scripts/emulator --pubsub start)")
            return []
        }
        let measurements = try publishRate(host: host, count: count, repeats: repeats)
        if let firestoreHost = ListenSupport.emulatorHost(workload: "pubsub-latency") {
            try latency(pubSubHost: host, firestoreHost: firestoreHost, rate: rate, seconds: seconds)
        }
        return measurements
    }

    static func pubSubHost() -> String? {
        ProcessInfo.processInfo.environment["PUBSUB_EMULATOR_HOST"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static func uniqueID(_ label: String) -> String { "\(label)-\(UInt32.random(in: 0...UInt32.max))" }

    // MARK: rate

    /// The change messages of `count` documents of `mirror-load`, as a snapshot listing each `added` makes them.
    static func messages(count: Int) throws -> [PubSubMessage] {
        let root = "projects/\(project)/databases/(default)/documents"
        let db = try Firestore.emulator(host: "127.0.0.1:1", projectID: project)
        let readTime = try Timestamp(seconds: 1_765_000_000, nanos: 123_456_789)
        return try (0..<count).map { index in
            let updateTime = try Timestamp(seconds: 1_764_999_000 + Int64(index / 1000), nanos: Int32(index % 1000))
            let document = Document(
                name: "\(root)/items/d\(String(format: "%07d", index))",
                fields: MirrorSupport.fields(index, root: root),
                createTime: updateTime, updateTime: updateTime)
            let change = DocumentChange(
                type: .added, document: DocumentSnapshot(firestore: db, document: document, readTime: readTime),
                oldIndex: nil, newIndex: index)
            return try PubSubChangeMessage.message(for: change, readTime: readTime)
        }
    }

    /// One message a line: `{"data": BASE64, "attributes": {...}, "orderingKey": KEY}`.
    static func write(_ messages: [PubSubMessage], to path: String) throws {
        var text = ""
        for message in messages {
            let line: JSONValue = [
                "data": .string(message.data.base64EncodedString()),
                "attributes": .object(message.attributes.mapValues { .string($0) }),
                "orderingKey": .string(message.orderingKey),
            ]
            text += line.serializedString() + "\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }

    static func read(_ path: String) throws -> [PubSubMessage] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        return try text.split(separator: "\n").map { line in
            let entry = try JSONValue.parse(Data(line.utf8))
            return PubSubMessage(
                data: entry["data"]?.stringValue.flatMap { Data(base64Encoded: $0) } ?? Data(),
                attributes: entry["attributes"]?.objectValue?.compactMapValues(\.stringValue) ?? [:],
                orderingKey: entry["orderingKey"]?.stringValue ?? "")
        }
    }

    /// The child: publishes FILE's messages to TOPIC over `wireProtocol`; prints `ok SECONDS MESSAGES` (first publish
    /// to last acknowledgement).
    static func runChild(topic: String, path: String, protocol wireProtocol: PubSubProtocol) throws {
        guard let host = pubSubHost() else { throw BenchmarkError(message: "PUBSUB_EMULATOR_HOST is not set") }
        let messages = try read(path)
        let publisher = try PubSubPublisher.emulator(host: host, protocol: wireProtocol)
        let topic = try PubSubTopic(topic)
        let (elapsed, ids) = try blocking {
            let start = ContinuousClock.now
            let ids = try await publisher.publish(messages, to: topic)
            return (ListenSupport.seconds(ContinuousClock.now - start), ids)
        }
        guard ids.count == messages.count, !ids.contains("") else {
            throw BenchmarkError(message: "\(ids.filter { !$0.isEmpty }.count) of \(messages.count) acknowledged")
        }
        print("ok \(elapsed) \(ids.count)")
    }

    /// Runs a publishing child; (seconds inside, seconds of the whole process).
    static func child(_ executable: String, _ arguments: [String], count: Int, label: String) throws -> (
        Double, Double
    ) {
        let result = try MirrorSupport.command(executable, arguments)
        let parts = result.output.split(separator: "\n").last?.split(separator: " ") ?? []
        guard result.status == 0, parts.count == 3, parts[0] == "ok", let inside = Double(parts[1]),
            Int(parts[2]) == count
        else {
            throw BenchmarkError(
                message: "pubsub-publish: \(label) exited \(result.status): \(result.output.suffix(500)) "
                    + "\(result.errors.suffix(1500))")
        }
        return (inside, result.seconds)
    }

    static func perSecond(_ count: Int, _ seconds: Double) -> String {
        String(format: "%.0f messages/s", Double(count) / max(seconds, 1e-9))
    }

    static func publishRate(host: String, count: Int, repeats: Int) throws -> [Measurement] {
        let publisher = try PubSubPublisher.emulator(host: host)
        let topic = try PubSubTopic(projectID: project, topicID: uniqueID("publish"))
        _ = try blocking { try await publisher.createTopic(topic) }
        let messages = try messages(count: count)
        let bytes = messages.reduce(0) { $0 + $1.data.count }
        let folder = try MirrorSupport.temporaryDirectory("pubsub-publish")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/messages.jsonl"
        try write(messages, to: path)
        let this = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let ours = { (wireProtocol: PubSubProtocol) in
            try child(
                this, [childFlag, topic.name, path, wireProtocol.rawValue], count: count,
                label: "PubSubPublisher (\(wireProtocol))")
        }
        guard let python = BenchPythonClient.python() else {
            print(
                "pubsub-publish: Python rows skipped (no FIRESTORE_FEED_TEST_PYTHON or .build/test-venv: "
                    + "Scripts/test-python)")
            return []
        }
        let script = FileManager.default.currentDirectoryPath + "/Scripts/bench-pubsub-publisher"
        let theirs = { try child(python, [script, topic.name, path], count: count, label: "Python publisher") }
        if !quick {
            _ = try ours(.rest)
            _ = try ours(.grpc)
            _ = try theirs()
        }
        var rest: [(Double, Double)] = []
        var grpc: [(Double, Double)] = []
        var baseline: [(Double, Double)] = []
        for _ in 0..<max(repeats, 1) {
            rest.append(try ours(.rest))
            grpc.append(try ours(.grpc))
            baseline.append(try theirs())
        }
        let inside = (Harness.median(rest.map(\.0)), Harness.median(grpc.map(\.0)), Harness.median(baseline.map(\.0)))
        let process = (Harness.median(rest.map(\.1)), Harness.median(grpc.map(\.1)), Harness.median(baseline.map(\.1)))
        func ratio(_ baseline: Double, _ candidate: Double) -> String { String(format: "%.2fx", baseline / candidate) }
        // The goal itself is recorded by each protocol's Measurement (target 1x: time at most the Python publisher's).
        let verdict = min(inside.0, inside.1) <= inside.2 ? "met" : "MISSED"
        print(
            "pubsub-publish: \(count) messages (\(bytes / max(count, 1)) B of data each, one ordering key each), first "
                + "publish to last ack: REST \(perSecond(count, inside.0)), gRPC \(perSecond(count, inside.1)), Python "
                + "\(perSecond(count, inside.2)); rate ratios REST/Python \(ratio(inside.2, inside.0)), gRPC/Python "
                + "\(ratio(inside.2, inside.1)), gRPC/REST \(ratio(inside.0, inside.1)) (goal >= 1x against Python: "
                + "\(verdict)); whole process REST "
                + "\(perSecond(count, process.0)), gRPC \(perSecond(count, process.1)), Python "
                + "\(perSecond(count, process.2))")
        let publisherName = "google-cloud-pubsub PublisherClient (ordered)"
        return [
            Measurement(
                workload: "pubsub-publish", n: count, medianSeconds: inside.0, baseline: publisherName,
                baselineMedianSeconds: inside.2, target: 1),
            Measurement(
                workload: "pubsub-publish-grpc", n: count, medianSeconds: inside.1, baseline: publisherName,
                baselineMedianSeconds: inside.2, target: 1),
            Measurement(
                workload: "pubsub-publish-grpc-vs-rest", n: count, medianSeconds: inside.1,
                baseline: "PubSubPublisher over REST", baselineMedianSeconds: inside.0, target: nil),
            Measurement(
                workload: "pubsub-publish-process", n: count, medianSeconds: process.0,
                baseline: publisherName + ", whole process", baselineMedianSeconds: process.2, target: 1),
            Measurement(
                workload: "pubsub-publish-grpc-process", n: count, medianSeconds: process.1,
                baseline: publisherName + ", whole process", baselineMedianSeconds: process.2, target: 1),
        ]
    }

    // MARK: latency

    final class Samples: Sendable {
        /// Per document name: publish-accepted minus commit, read time minus commit.
        let accepted = Mutex<[(Double, Double)]>([])
        let snapshots = Mutex(0)
        let received = Mutex<[Double]>([])
    }

    static func latency(pubSubHost: String, firestoreHost: String, rate: Int, seconds: Double) throws {
        let publisher = try PubSubPublisher.emulator(host: pubSubHost)
        let db = try Firestore.emulator(host: firestoreHost, projectID: ListenSupport.projectID("pubsub"))
        let topic = try PubSubTopic(projectID: project, topicID: uniqueID("latency"))
        let subscription = try PubSubSubscription(projectID: project, subscriptionID: uniqueID("latency-sub"))
        let folder = try MirrorSupport.temporaryDirectory("pubsub-latency")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let total = max(Int(Double(rate) * seconds), 1)
        let samples = Samples()
        let written = try blocking { [samples] in
            try await publisher.createTopic(topic)
            try await publisher.createSubscription(subscription, topic: topic, ordered: true)
            let collection = db.collection("items")
            let store = try await FeedCheckpointStore(path: folder + "/checkpoint.sqlite")
            let feed = Task {
                try await collection.publish(
                    to: topic, with: publisher, checkpoint: store, key: "pubsub-latency",
                    onPublished: { snapshot, _ in
                        let now = Date().timeIntervalSince1970
                        let read = snapshot.readTime.map { $0.dateValue.timeIntervalSince1970 } ?? now
                        let rows = snapshot.documentChanges.compactMap { change in
                            change.document.document?.updateTime.map { commit in
                                (
                                    now - commit.dateValue.timeIntervalSince1970,
                                    read - commit.dateValue.timeIntervalSince1970
                                )
                            }
                        }
                        samples.accepted.withLock { $0 += rows }
                        samples.snapshots.withLock { $0 += 1 }
                    })
            }
            let subscriber = Task { try await receive(total, from: subscription, publisher, into: samples) }
            // The first (empty) snapshot published: the feed is live.
            let ready = ContinuousClock.now + .seconds(30)
            while samples.snapshots.withLock({ $0 }) == 0, ContinuousClock.now < ready {
                try await Task.sleep(for: .milliseconds(10))
            }
            let written = try await write(collection, rate: rate, total: total)
            let deadline = ContinuousClock.now + .seconds(30)
            while samples.received.withLock({ $0.count }) < total, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            subscriber.cancel()
            feed.cancel()
            _ = try? await subscriber.value
            try await feed.value
            return written
        }
        let accepted = samples.accepted.withLock { $0 }
        let received = samples.received.withLock { $0 }
        if accepted.count != total || received.count != total {
            print(
                "CHECK FAILED: pubsub-latency: \(total) commits, \(accepted.count) published, \(received.count) "
                    + "received")
        }
        let publish = accepted.map(\.0)
        let listen = accepted.map(\.1)
        func p(_ values: [Double], _ fraction: Double) -> Double { ListenSupport.percentile(values, fraction) }
        print(
            "pubsub-latency: \(total) commits of 1 document at \(String(format: "%.0f", Double(total) / written.seconds))"
                + "/s (asked \(rate)/s, \(written.lateCommits) started late); commit (updateTime) to publish accepted "
                + "p50 \(ListenSupport.ms(p(publish, 0.5))) p99 \(ListenSupport.ms(p(publish, 0.99))); to received by "
                + "a REST pull p50 \(ListenSupport.ms(p(received, 0.5))) p99 \(ListenSupport.ms(p(received, 0.99))); "
                + "of which commit to snapshot read time p50 \(ListenSupport.ms(p(listen, 0.5))) p99 "
                + "\(ListenSupport.ms(p(listen, 0.99)))")
        print(
            #"{"workload":"pubsub-latency","n":\#(total),"rate":\#(rate),"#
                + #""publish_p50_s":\#(p(publish, 0.5)),"publish_p99_s":\#(p(publish, 0.99)),"#
                + #""receive_p50_s":\#(p(received, 0.5)),"receive_p99_s":\#(p(received, 0.99)),"#
                + #""listen_p50_s":\#(p(listen, 0.5)),"listen_p99_s":\#(p(listen, 0.99))}"#)
    }

    /// Commits `total` new documents, one a commit, at `rate` a second: each commit starts at its time in a task of
    /// its own (open loop: a slow commit does not delay the next); a commit that starts over 5 ms late counts as late.
    static func write(_ collection: CollectionReference, rate: Int, total: Int) async throws
        -> MirrorLiveWorkload.Written
    {
        let start = ContinuousClock.now
        let late = try await withThrowingTaskGroup(of: Void.self) { group in
            var late = 0
            for index in 0..<total {
                let due = start + .seconds(Double(index) / Double(rate))
                if ContinuousClock.now < due {
                    try await Task.sleep(until: due)
                } else if ContinuousClock.now - due > .milliseconds(5) {
                    late += 1
                }
                group.addTask {
                    let fields = MirrorLiveWorkload.tailFields(index, seq: index, version: 0)
                    _ = try await collection.document("w\(String(format: "%06d", index))").setData(
                        fields.mapValues { .value($0) })
                }
            }
            try await group.waitForAll()
            return late
        }
        return MirrorLiveWorkload.Written(
            changes: total, seconds: ListenSupport.seconds(ContinuousClock.now - start), lateCommits: late)
    }

    /// Pulls (long polls, `returnImmediately` false) and acknowledges until `total` messages came or the task is
    /// cancelled, noting each message's received time minus its `updateTime`.
    static func receive(
        _ total: Int, from subscription: PubSubSubscription, _ publisher: PubSubPublisher, into samples: Samples
    ) async throws {
        while samples.received.withLock({ $0.count }) < total, !Task.isCancelled {
            let answer = try await publisher.send(
                "POST", subscription.name + ":pull", body: ["maxMessages": 1_000, "returnImmediately": false])
            let now = Date().timeIntervalSince1970
            let received = answer["receivedMessages"]?.arrayValue ?? []
            let lags = received.compactMap { entry -> Double? in
                guard let text = entry["message"]?["attributes"]?["updateTime"]?.stringValue,
                    let commit = try? Timestamp(rfc3339: text)
                else { return nil }
                return now - commit.dateValue.timeIntervalSince1970
            }
            samples.received.withLock { $0 += lags }
            let ackIDs = received.compactMap { $0["ackId"]?.stringValue }
            if !ackIDs.isEmpty {
                _ = try await publisher.send(
                    "POST", subscription.name + ":acknowledge", body: ["ackIds": .array(ackIDs.map { .string($0) })])
            }
        }
    }
}
