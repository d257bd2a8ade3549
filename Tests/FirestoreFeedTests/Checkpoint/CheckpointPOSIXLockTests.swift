import FirestoreFeed
import FirestoreREST
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Opening a store never closes a descriptor of its own on the store file: on Linux closing any descriptor of a
/// file drops every POSIX lock the process holds on it, those of another SQLite connection included
/// (https://www.sqlite.org/howtocorrupt.html, section 2.2). No network.
@Suite(.timeLimit(.minutes(2))) struct CheckpointPOSIXLockTests {
    /// The POSIX (`fcntl`) locks this process holds on the file at `path`, from `/proc/locks`.
    static func posixLocks(on path: String) throws -> Int {
        var info = stat()
        guard stat(path, &info) == 0 else { return -1 }
        let lines = try String(contentsOfFile: "/proc/locks", encoding: .utf8).split(separator: "\n")
        return lines.filter { line in
            let fields = line.split(separator: " ")
            return fields.count > 5 && fields[1] == "POSIX" && fields[4] == "\(getpid())"
                && fields[5].hasSuffix(":\(info.st_ino)")
        }.count
    }

    /// In WAL mode an open connection holds a shared lock on the store file. Before issue 24 a second store opened
    /// on the file read its header with a descriptor of its own and closed it: the first connection's lock was gone
    /// (0 locks), and the second's was never taken.
    @Test func openingASecondStoreKeepsTheFirstConnectionsLock() async throws {
        let path = CheckpointFiles.temporaryPath()
        defer { CheckpointFiles.remove(path) }
        let first = try await FeedCheckpointStore(path: path)
        #expect(try await first.keys() == [])
        #expect(try Self.posixLocks(on: path) == 1)
        let second = try await FeedCheckpointStore(path: path)
        #expect(try Self.posixLocks(on: path) == 1)
        #expect(try await second.keys() == [])
        #expect(try await first.keys() == [])
        #expect(try Self.posixLocks(on: path) == 1)
    }
}
