import FirestoreFeed
import FirestoreREST
import Foundation

/// `poll-unchanged` (issue 5, 9): one poll of an unchanged 10,000-document result through an in-memory
/// transport, in keys mode and in full mode (request, parse, reuse of unchanged documents, change
/// computation), against `JSONSerialization` parsing the full-mode response (the floor). Targets: full mode
/// at most 1.5x the floor; keys-mode bytes at most 15 % of full-mode bytes.
enum PollWorkload {
    static func run(count: Int) throws -> [Measurement] {
        let documents = BenchmarkDocuments.documents(count)
        let fullBody = BenchmarkDocuments.runQueryBody(documents)
        let keysBody = BenchmarkDocuments.runQueryBody(documents, keysOnly: true)
        let full = try Firestore(
            database: DatabaseID(projectID: "bench"), baseURL: "http://127.0.0.1:1", credentials: NoCredentials(),
            transport: FixedResponseTransport(body: fullBody), isEmulator: true)
        let keys = try Firestore(
            database: DatabaseID(projectID: "bench"), baseURL: "http://127.0.0.1:1", credentials: NoCredentials(),
            transport: FixedResponseTransport(body: keysBody), isEmulator: true)
        let previous = PollState(documents: documents)
        let ordering = DocumentOrdering(orders: [])

        func poll(_ firestore: Firestore, _ mode: PollMode) throws -> PollFetcher.Result {
            let query = firestore.collection("items").query
            let result = try blocking { try await PollFetcher(query: query).fetch(mode: mode, previous: previous) }
            let changes = DocumentChangeComputation.changes(from: documents, to: result.documents, ordering: ordering)
            guard changes.isEmpty, result.documents.count == count else {
                throw BenchmarkError(message: "poll-unchanged: \(changes.count) changes on an unchanged result")
            }
            return result
        }
        let fullBytes = try poll(full, .full).statistics.bytesReceived
        let keysBytes = try poll(keys, .keys).statistics.bytesReceived
        let share = Double(keysBytes) / Double(max(fullBytes, 1))
        let verdict = Harness.goal(
            "poll-unchanged: keys-mode bytes / full mode's (\(count) documents)",
            figure: String(format: "%.1f %%", share * 100), target: "<= 15 %", met: share <= 0.15)
        print(
            "poll-unchanged bytes: keys \(keysBytes), full \(fullBytes), keys/full \(String(format: "%.1f", share * 100)) % "
                + "(target <= 15 %: \(verdict))")
        print(
            #"{"workload":"poll-bytes","n":\#(count),"keys_bytes":\#(keysBytes),"full_bytes":\#(fullBytes),"ratio":\#(share)}"#
        )

        var sink = 0
        let floor: () throws -> Void = {
            if let array = try JSONSerialization.jsonObject(with: fullBody) as? [Any] { sink &+= array.count }
        }
        let fullMeasurement = try Harness.compare(
            workload: "poll-full", n: count, baseline: "JSONSerialization (full body)",
            candidate: { sink &+= try poll(full, .full).documents.count }, baselineBody: floor)
        let keysMeasurement = try Harness.compare(
            workload: "poll-keys", n: count, baseline: "JSONSerialization (full body)",
            candidate: { sink &+= try poll(keys, .keys).documents.count }, baselineBody: floor)
        if sink == 42 { print("") }
        return [fullMeasurement, keysMeasurement]
    }
}
