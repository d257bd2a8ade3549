import Foundation

/// What `/proc/PID/status` and `/proc/PID/task` say of a running `firestore-feed serve`: its resident memory, its
/// threads, and how many of them serve a connection (named `serve` by `TCPListener.serveConnections`).
struct ServeProcessStatus: CustomStringConvertible {
    struct Failure: Error, CustomStringConvertible { let description: String }

    /// `VmRSS`, in KiB.
    let residentKiB: Int
    /// `Threads`.
    let threads: Int
    /// The threads named `serve`: one per connection being served.
    let connectionThreads: Int

    init(pid: Int32) throws {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        func field(_ name: String) -> Int? {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.flatMap {
                Int($0.dropFirst(name.count + 1).filter(\.isNumber))
            }
        }
        guard let resident = field("VmRSS"), let threads = field("Threads") else {
            throw Failure(description: "no VmRSS or Threads in /proc/\(pid)/status")
        }
        residentKiB = resident
        self.threads = threads
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")
        connectionThreads =
            tasks.filter { task in
                let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
                return name?.trimmingCharacters(in: .whitespacesAndNewlines) == "serve"
            }.count
    }

    var description: String {
        "VmRSS \(residentKiB) KiB, \(threads) threads, \(connectionThreads) serving a connection"
    }
}
