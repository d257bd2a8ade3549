import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A process and the processes it started, found through `/proc` (Linux): so that ending an `--exec` command ends
/// what its shell started too (`sh -c 'a; b'` runs `a` as a child), instead of leaving it running with the watch's
/// output open.
enum ProcessTree {
    /// `pid` and its descendants alive now, parents before children.
    static func members(of pid: pid_t) -> [pid_t] {
        var children: [pid_t: [pid_t]] = [:]
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        for entry in entries {
            guard let child = pid_t(entry), let parent = parent(of: child) else { continue }
            children[parent, default: []].append(child)
        }
        var tree = [pid]
        var index = 0
        while index < tree.count {
            tree += children[tree[index]] ?? []
            index += 1
        }
        return tree
    }

    /// Sends `signal` to `pid` and every descendant of it.
    static func signal(_ pid: pid_t, _ signal: Int32) {
        for member in members(of: pid) { kill(member, signal) }
    }

    /// The parent of `pid`, from `/proc/PID/stat` (the field after the command name, which may hold spaces and
    /// parentheses, so read after its last `)`), or `nil` when it cannot be read.
    private static func parent(of pid: pid_t) -> pid_t? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 1 else { return nil }
        return pid_t(fields[1])
    }
}
