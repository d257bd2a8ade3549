import Synchronization

/// A free list of idle easy handles, so consecutive requests reuse handles and with them their live
/// connections (HTTP keep-alive, TLS sessions, DNS cache).
///
/// A handle is checked out by one transfer at a time and checked back in when the transfer ends, so no
/// handle is ever used by two threads at once. At most `capacity` idle handles are kept; surplus handles
/// (after a burst of concurrent requests) are cleaned up.
final class CurlHandlePool: Sendable {
    private let idle = Mutex<[CurlEasyHandle]>([])
    private let capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 0)
    }

    /// The most recently returned idle handle (the one most likely to hold a live connection), or a new one.
    /// - Throws: ``FirestoreError`` with code `.unknown` when a new handle cannot be created.
    func checkOut() throws(FirestoreError) -> CurlEasyHandle {
        if let handle = idle.withLock({ $0.popLast() }) {
            return handle
        }
        return try CurlEasyHandle()
    }

    /// Returns `handle` to the pool. The caller must not use it afterwards.
    func checkIn(_ handle: CurlEasyHandle) {
        let surplus: CurlEasyHandle? = idle.withLock { handles in
            guard handles.count < capacity else { return handle }
            handles.append(handle)
            return nil
        }
        // A surplus handle is released here, outside the lock (curl_easy_cleanup may close sockets).
        _ = surplus
    }

    /// How many idle handles the pool holds.
    var idleCount: Int {
        idle.withLock { $0.count }
    }
}
