import FirestoreWire
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A streamed response body that a client's ``Firestore/shutdown()`` ends: its transfer is stopped, the reader gets
/// the client's shutdown error, and the shutdown waits until the transfer has ended. The registration goes when the
/// body ends or is dropped.
final class ShutdownBodySource: HTTPBodySource {
    private let base: any HTTPBodySource
    private let lifecycle: ClientLifecycle
    private let registration = Mutex<Int?>(nil)

    init(base: any HTTPBodySource, lifecycle: ClientLifecycle) {
        self.base = base
        self.lifecycle = lifecycle
        let id = lifecycle.register { [base, lifecycle] in
            base.cancel(error: lifecycle.shutDownError)
            await base.ended()
        }
        if let id {
            registration.withLock { $0 = id }
        } else {
            base.cancel(error: lifecycle.shutDownError)
        }
    }

    func next() async throws -> Data? {
        do {
            let chunk = try await base.next()
            if chunk == nil { unregister() }
            return chunk
        } catch {
            unregister()
            if lifecycle.isShutDown { throw lifecycle.shutDownError }
            throw error
        }
    }

    func cancel(error: FirestoreError) { base.cancel(error: error) }

    func ended() async { await base.ended() }

    private func unregister() {
        if let id = registration.withLock({ state in
            defer { state = nil }
            return state
        }) {
            lifecycle.unregister(id)
        }
    }

    deinit { unregister() }
}
