import FirestoreREST
import FirestoreTestSupport
import FirestoreTesting
import Foundation
import Testing

/// A recording killed at any moment leaves a cassette that loads (issue 19 item 7): `watch --cassette FILE
/// --record-mode all` polling whole documents every 10 ms (about 330 KB per poll, so a kill often lands in the
/// middle of an append), SIGKILLed at a random moment, five times.
@Suite(.timeLimit(.minutes(4))) struct RecordingKillLiveTests {
    @Test(.timeLimit(.minutes(4))) func aCassetteKilledMidRecordingLoads() async throws {
        let host = try EmulatorEnvironment.requireHost()
        let project = EmulatorEnvironment.uniqueProjectID("killrec")
        let db = try Firestore.emulator(host: host, projectID: project)
        let filler = String(repeating: "f", count: 1_000)
        let batch = db.batch()
        for index in 0..<300 {
            try batch.setData(
                ["n": .integer(Int64(index)), "filler": .string(filler)], forDocument: db.document("items/i\(index)"))
        }
        try await batch.commit()
        let path = NSTemporaryDirectory() + "\(project).json"
        defer {
            try? FileManager.default.removeItem(atPath: path)
            try? FileManager.default.removeItem(atPath: path + "-journal")
        }
        var loaded: [Int] = []
        var journals = 0
        for _ in 0..<5 {
            // A fresh recording each time (the last round's journal may stay: it must not count).
            try? FileManager.default.removeItem(atPath: path)
            let child = try CLIProcess([
                "watch", "items", "--emulator", host, "--project", project, "--cassette", path,
                "--record-mode", "all", "--mode", "full", "--interval", "0.01",
            ])
            // The recording has begun, then a random moment.
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .seconds(60) {
                let interactions = (try? Cassette(contentsOfFile: path))?.interactions.count ?? 0
                if interactions >= 2 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(Int64.random(in: 0...800)))
            kill(child.process.processIdentifier, SIGKILL)
            let result = await child.finish(timeout: 30)
            #expect(result.status == 9)
            // A journal left behind: the kill came during an append (the file may be cut short).
            if FileManager.default.fileExists(atPath: path + "-journal") { journals += 1 }
            let cassette = try Cassette(contentsOfFile: path)
            #expect(cassette.interactions.count >= 2)
            #expect(cassette.interactions.allSatisfy { $0.response.status == 200 })
            #expect(cassette.interactions.allSatisfy { $0.request.path.hasSuffix(":runQuery") })
            loaded.append(cassette.interactions.count)
        }
        print("killed recordings loaded with \(loaded) interactions; \(journals) killed during an append")
    }
}
