internal import CCurl

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A detached POSIX thread for one blocking libcurl transfer, so `curl_easy_perform` never runs on a Swift
/// concurrency thread (CONTRIBUTING.md, "Never block a Swift concurrency thread"). A plain pthread with the default attributes (the same
/// thread Foundation's `Thread` starts), without importing Foundation.
package enum TransferThread {
    /// Starts a detached thread named `name` (at most 15 bytes are kept, the Linux limit) that runs `body`.
    /// - Returns: `false`, without running `body`, when the system refused a new thread (`pthread_create`
    ///   failed, e.g. `EAGAIN`).
    package static func start(name: String, _ body: @escaping @Sendable () -> Void) -> Bool {
        final class Job {
            let name: String
            let body: @Sendable () -> Void
            init(name: String, body: @escaping @Sendable () -> Void) {
                self.name = name
                self.body = body
            }
        }
        let job = Unmanaged.passRetained(Job(name: name, body: body)).toOpaque()
        #if canImport(Darwin)
            var thread: pthread_t?
        #else
            var thread = pthread_t()
        #endif
        let result = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let job = Unmanaged<Job>.fromOpaque(argument).takeRetainedValue()
                ccurl_set_thread_name(String(job.name.utf8.prefix(15)) ?? "")
                job.body()
                return nil
            }, job)
        guard result == 0 else {
            Unmanaged<Job>.fromOpaque(job).release()
            return false
        }
        #if canImport(Darwin)
            if let thread { pthread_detach(thread) }
        #else
            pthread_detach(thread)
        #endif
        return true
    }
}
