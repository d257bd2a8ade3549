import FirestoreREST
import FirestoreTesting
import Synchronization

/// The cassettes this process records (`--cassette` in a recording mode), ended before it exits.
package enum CassetteRecordings {
    private static let transports = Mutex<[ReplayTransport]>([])

    /// Adds `transport` to those ``finish()`` ends.
    static func add(_ transport: ReplayTransport) {
        transports.withLock { $0.append(transport) }
    }

    /// Ends every recording this process opened (``ReplayTransport/finishRecording()``): called before the tool
    /// exits, so that the exit never cuts a cassette file off in the middle of a write and the file says how its
    /// Listen calls ended. Returns the first failure.
    package static func finish() -> FirestoreError? {
        let open = transports.withLock { transports in
            defer { transports = [] }
            return transports
        }
        var failure: FirestoreError?
        for transport in open {
            do throws(FirestoreError) {
                try transport.finishRecording()
            } catch {
                failure = failure ?? error
            }
        }
        return failure
    }
}
