import Foundation

/// What this process holds, read from `/proc/self`: its threads' names, its open descriptors, the sockets among them
/// connected to one port, and its child processes.
struct ProcessCensus {
    /// Each thread's name (`/proc/self/task/*/comm`), sorted.
    let threads: [String]
    /// Each open descriptor as `number -> target` (`/proc/self/fd`), e.g. `7 -> socket:[123]`, sorted.
    let descriptors: [String]
    /// The descriptors that are TCP sockets to `port` (matched by inode in `/proc/self/net/tcp` and `tcp6`).
    let socketsToPort: Int
    /// The child processes (`/proc/self/task/*/children`).
    let children: [String]

    /// Takes the census, counting sockets to `port`.
    static func take(port: Int) -> ProcessCensus {
        let files = FileManager.default
        let tasks = (try? files.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var threads: [String] = []
        var children: [String] = []
        for task in tasks {
            if let name = read("/proc/self/task/\(task)/comm") {
                threads.append(name.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            if let list = read("/proc/self/task/\(task)/children") {
                children += list.split(separator: " ").map {
                    String($0).trimmingCharacters(in: .whitespacesAndNewlines)
                }
                .filter { !$0.isEmpty }
            }
        }
        let inodes = socketInodes(toPort: port)
        var descriptors: [String] = []
        var sockets = 0
        for fd in (try? files.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
            guard let target = try? files.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { continue }
            descriptors.append("\(fd) -> \(target)")
            if target.hasPrefix("socket:["), inodes.contains(String(target.dropFirst(8).dropLast())) { sockets += 1 }
        }
        return ProcessCensus(
            threads: threads.sorted(), descriptors: descriptors.sorted(), socketsToPort: sockets,
            children: children.sorted())
    }

    /// The inodes of the TCP sockets whose remote port is `port`.
    private static func socketInodes(toPort port: Int) -> Set<String> {
        let hexPort = String(format: "%04X", port)
        var inodes: Set<String> = []
        for table in ["/proc/self/net/tcp", "/proc/self/net/tcp6"] {
            guard let text = read(table) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let columns = line.split(separator: " ")
                // sl local_address rem_address st tx_queue:rx_queue tr:tm->when retrnsmt uid timeout inode
                guard columns.count > 9, columns[2].hasSuffix(":" + hexPort) else { continue }
                inodes.insert(String(columns[9]))
            }
        }
        return inodes
    }

    /// The whole text of a `/proc` file, read until the end: such files report a size of 0, and a table of many
    /// sockets (`/proc/self/net/tcp` lists every socket of the network namespace, not only this process's) takes
    /// many reads.
    static func read(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var data = Data()
        while let chunk = try? handle.read(upToCount: 65_536), !chunk.isEmpty { data.append(chunk) }
        return String(decoding: data, as: UTF8.self)
    }

    /// The elements of `after` that `before` does not hold (a multiset difference).
    static func added(_ after: [String], since before: [String]) -> [String] {
        var left = Dictionary(before.map { ($0, 1) }, uniquingKeysWith: +)
        var added: [String] = []
        for element in after {
            if let count = left[element], count > 0 {
                left[element] = count - 1
            } else {
                added.append(element)
            }
        }
        return added
    }
}
