#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's limit of open files (`RLIMIT_NOFILE`), which a server of one socket per client must keep above its
/// client limit: past it `accept` fails (`EMFILE`) and clients wait in the listen queue, served by no one.
enum OpenFileLimit {
    /// Descriptors beyond the clients': the listening socket, the feed's connections, pipes, standard streams.
    static let reserve = 64

    /// Raises the soft limit to `needed` descriptors when it is lower (up to the hard limit, which only a privileged
    /// process may raise, as Go's runtime and `nginx`'s `worker_rlimit_nofile` do); the soft limit now.
    @discardableResult
    static func raise(to needed: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        let wanted = rlim_t(max(needed, 0))
        guard limit.rlim_cur != rlim_t.max, limit.rlim_cur < wanted else {
            return limit.rlim_cur == rlim_t.max ? Int.max : Int(limit.rlim_cur)
        }
        let raised = limit.rlim_max == rlim_t.max ? wanted : min(wanted, limit.rlim_max)
        var next = limit
        next.rlim_cur = raised
        guard setrlimit(Int32(RLIMIT_NOFILE.rawValue), &next) == 0 else { return Int(limit.rlim_cur) }
        return Int(raised)
    }
}
