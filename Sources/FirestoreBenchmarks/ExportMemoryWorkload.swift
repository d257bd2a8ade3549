import FirestoreREST
import Foundation

/// `export-memory` (issue 28): resident memory while exporting `documents` documents from the real emulator with
/// `Query.stream()` (what `firestore-feed export` does: each document turned into its JSON line and dropped), read
/// from `/proc/self/status` (`VmRSS`) after every tenth of the documents; against `getDocuments()` of the same
/// query, which holds the whole result. Target: flat, the last sample within 10 % (or 8 MiB) of the first. Run it
/// in a process of its own (as `Scripts/bench` does), after the seeding it does itself (`BulkWriter`, ~330-byte
/// documents).
enum ExportMemoryWorkload {
    static func seconds(_ duration: Duration) -> String {
        let components = duration.components
        return String(format: "%.2f s", Double(components.seconds) + Double(components.attoseconds) / 1e18)
    }

    static func run(documents: Int) throws -> [Measurement] {
        guard let host = ListenSupport.emulatorHost(workload: "export-memory") else { return [] }
        let db = try Firestore.emulator(host: host, projectID: ListenSupport.projectID("export-memory"))
        let collection = db.collection("export")
        let seeding = ContinuousClock.now
        try blocking {
            let writer = try db.bulkWriter(options: BulkWriter.Options(throttling: .disabled))
            let payload = String(repeating: "x", count: 200)
            for index in 0..<documents {
                try await writer.setData(
                    [
                        "n": .value(.integer(Int64(index))), "name": .value(.string("document \(index)")),
                        "payload": .value(.string(payload)),
                    ],
                    forDocument: collection.document(String(format: "d%07d", index)))
            }
            try await writer.close()
        }
        print("export-memory: seeded \(documents) documents in \(seconds(ContinuousClock.now - seeding))")
        MemoryWorkload.trimHeap()
        let step = max(documents / 10, 1)
        let (samples, streamed, firstDocument, total) = try blocking {
            var samples: [Int] = [MemoryWorkload.kilobytes("VmRSS")]
            var count = 0
            var bytes = 0
            let start = ContinuousClock.now
            var first = Duration.zero
            for try await document in collection.stream() {
                if count == 0 { first = ContinuousClock.now - start }
                bytes += (document.document?.restJSON().serialized().count ?? 0)
                count += 1
                if count % step == 0 { samples.append(MemoryWorkload.kilobytes("VmRSS")) }
            }
            _ = bytes
            return (samples, count, first, ContinuousClock.now - start)
        }
        MemoryWorkload.trimHeap()
        let held = try blocking { () -> (Int, Int) in
            let before = MemoryWorkload.kilobytes("VmRSS")
            let snapshot = try await collection.getDocuments()
            MemoryWorkload.trimHeap()
            let after = MemoryWorkload.kilobytes("VmRSS")
            return (snapshot.count, after - before)
        }
        let mebibytes: [String] = samples.map { String(format: "%.1f", Double($0) / 1024) }
        let firstTenth: Int = samples.dropFirst().first ?? 0
        let growth: Double = Double((samples.last ?? 0) - firstTenth) / 1024
        let flat: Bool = growth <= max(8, Double(firstTenth) / 1024 * 0.1)
        let growthText = String(format: "%.1f", growth)
        let verdict = Harness.goal(
            "export-memory: resident memory while stream() exports \(streamed) documents",
            figure: "\(growthText) MiB growth from the first tenth", target: "flat (within 10 % or 8 MiB)", met: flat)
        var line = "export-memory  n=\(streamed): stream() resident MiB at start and every tenth: "
        line += mebibytes.joined(separator: " ")
        line += "  (growth from the first tenth \(growthText) MiB; target flat: \(verdict))"
        line += "; first document after \(seconds(firstDocument)), all in \(seconds(total))"
        line += "; getDocuments() of the same \(held.0) holds +\(held.1 / 1024) MiB"
        print(line)
        print(
            #"{"workload":"export-memory","n":\#(streamed),"resident_kib":[\#(samples.map(String.init).joined(separator: ","))],"#
                + #""get_documents_kib":\#(held.1)}"#)
        if streamed != documents || held.0 != documents {
            print("CHECK FAILED: export-memory streamed \(streamed) and got \(held.0) of \(documents) documents")
        }
        return []
    }
}
