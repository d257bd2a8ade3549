import FirestoreREST
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The exclusive hold of one feed on one checkpoint key: an `flock(LOCK_EX | LOCK_NB)` on a side file of the store,
/// `STORE-lock-<16 hex digits>` (FNV-1a 64 of the key's UTF-8 bytes), next to SQLite's own `-wal` and `-shm`.
///
/// Why `flock` on a side file: the kernel releases it when the holder's file description closes, so a process
/// that is killed (SIGKILL included) never leaves a stale lock, and there is no process ID to check and none to
/// be fooled by a reused one. `flock` locks belong to the open file description, so a second feed in the same
/// process is refused just as a second process is. While held, the file holds the holder's process ID (a
/// ``recordBytes``-byte record, overwritten in place: the file is never truncated), which the refusal names. Side
/// files are never deleted (deleting a lock file another process holds open would let a third lock a new file of
/// the same name).
///
/// The name is predictable, so the file is opened with ``SideFile/openOwned(_:mode:maxBytes:)``: a symbolic link, a
/// hard link, another user's file, a FIFO or a file larger than a lock file planted at the name is refused, never
/// written through (issue 24). A new lock file gets mode `0600`.
///
/// Blocking only as far as opening a small file goes: the lock is tried, never waited for. Made and released on
/// the store's executor (`BlockingExecutor`).
final class CheckpointKeyLock: Sendable {
    /// The size of the process ID record: the ID, spaces, a line feed.
    static let recordBytes = 12
    /// The largest lock file reused (a record of this library or of an earlier version, `PID\n`).
    static let maxFileBytes = 64

    /// The side file.
    let path: String
    private let descriptor: Mutex<Int32>

    /// Takes the lock of `key` of the store at `storePath`.
    /// - Throws: `FirestoreError` `.failedPrecondition` when another feed (in this process or another) holds it,
    ///   naming the key, the store and the holder's process ID; `.permissionDenied` when the side file cannot be
    ///   opened or is refused (a link, not a regular file of this user: see ``SideFile``).
    init(storePath: String, key: String) throws(FirestoreError) {
        path = Self.path(storePath: storePath, key: key)
        let descriptor: Int32
        do {
            descriptor = try SideFile.openOwned(path, mode: 0o600, maxBytes: Self.maxFileBytes)
        } catch {
            throw FirestoreError(
                code: .permissionDenied,
                message: "checkpoint store \(storePath): cannot use the lock file \(path) of key \"\(key)\": "
                    + "\(error.reason); refusing to write through it")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let holder = Self.holder(descriptor)
            close(descriptor)
            throw FirestoreError(
                code: .failedPrecondition,
                message: "checkpoint store \(storePath): key \"\(key)\" is in use by another feed"
                    + (holder.map { " (process \($0))" } ?? "")
                    + "; one feed at a time resumes from a key: stop that one or give this one another key")
        }
        self.descriptor = Mutex(descriptor)
        _ = SideFile.write(Self.record("\(getpid())"), at: 0, to: descriptor)
    }

    deinit { release() }

    /// Releases the lock (blanking the process ID, unlocking, closing the side file); idempotent.
    ///
    /// The unlock comes before the close: a child process spawned while the lock was held shares the open file
    /// description until its `exec` closes it (`O_CLOEXEC`), and `flock` locks belong to the description, so a close
    /// alone would leave the key held until that child's `exec`. `LOCK_UN` releases it for every copy at once.
    func release() {
        descriptor.withLock { descriptor in
            guard descriptor >= 0 else { return }
            _ = SideFile.write(Self.record(""), at: 0, to: descriptor)
            _ = flock(descriptor, LOCK_UN)
            close(descriptor)
            descriptor = -1
        }
    }

    /// The side file of `key`.
    static func path(storePath: String, key: String) -> String {
        let hex = String(CheckpointChecksum.fnv1a64(Array(key.utf8)), radix: 16)
        return storePath + "-lock-" + String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// `text` padded with spaces to a ``recordBytes``-byte line.
    static func record(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8.prefix(recordBytes - 1))
        return bytes + [UInt8](repeating: 0x20, count: recordBytes - 1 - bytes.count) + [0x0A]
    }

    /// The process ID written in a held lock file, if it can be read.
    private static func holder(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[..<count], as: UTF8.self)
        return Int32((text.split(separator: "\n").first ?? "").filter { $0 != " " })
    }
}
