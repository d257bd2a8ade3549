#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opening the files the package makes beside a user's file at predictable names (a checkpoint store's key locks
/// and temporary store, a cassette's journal), so that whatever someone else planted at such a name (a symbolic
/// link, a hard link, a file of another user, a FIFO) is refused instead of written through, emptied or waited on
/// (issue 24: a lock file that followed a link planted by `nobody` emptied a file of root's).
///
/// - A file that must be new is created with `O_CREAT | O_EXCL | O_NOFOLLOW`: nothing that exists at the name is
///   ever opened.
/// - A file that is reused across runs (a lock file) is opened with `O_CREAT | O_NOFOLLOW` and kept only when it
///   is a regular file of the effective user with one link and at most a given size; it is never truncated.
package enum SideFile {
    /// Why a side file was refused or could not be opened, in words (`it is a symbolic link`, `Permission denied`).
    package struct Refusal: Error, Sendable, Equatable {
        package let reason: String
        package init(_ reason: String) { self.reason = reason }
    }

    /// Creates the file `path`, which must not exist, for writing (`O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
    /// O_CLOEXEC`) and returns its descriptor; the caller closes it.
    /// - Parameter mode: the permission bits (before the umask), e.g. `0o644`.
    /// - Throws: ``Refusal`` when anything exists at `path` (a link included) or the file cannot be created.
    package static func createNew(_ path: String, mode: mode_t) throws(Refusal) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw Refusal(errno == EEXIST ? "something is already there" : String(cString: strerror(errno)))
        }
        return descriptor
    }

    /// Opens `path` for reading and writing, creating it when missing (`O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK |
    /// O_CLOEXEC`), and returns its descriptor when ``refusal(of:user:maxBytes:)`` finds nothing wrong with what was
    /// opened; the caller closes it. Nothing is written or truncated.
    /// - Parameters:
    ///   - mode: the permission bits of a new file (before the umask), e.g. `0o600`.
    ///   - maxBytes: the largest size an existing file may have.
    /// - Throws: ``Refusal`` for a symbolic link, a file that is not the user's own regular single-link file of at
    ///   most `maxBytes` bytes, or one that cannot be opened.
    package static func openOwned(_ path: String, mode: mode_t, maxBytes: Int) throws(Refusal) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw Refusal(errno == ELOOP ? "it is a symbolic link" : String(cString: strerror(errno)))
        }
        var info = stat()
        let problem =
            fstat(descriptor, &info) == 0
            ? refusal(of: info, user: geteuid(), maxBytes: maxBytes) : String(cString: strerror(errno))
        if let problem {
            close(descriptor)
            throw Refusal(problem)
        }
        return descriptor
    }

    /// What is wrong with reusing the file `info` describes as a side file of `user`, or `nil`: it is not a regular
    /// file, belongs to another user, has more than one link (a hard link to a file elsewhere), or holds more than
    /// `maxBytes` bytes.
    package static func refusal(of info: stat, user: uid_t, maxBytes: Int) -> String? {
        if (info.st_mode & S_IFMT) != S_IFREG { return "it is not a regular file" }
        if info.st_uid != user { return "it belongs to user \(info.st_uid), not to this user (\(user))" }
        if info.st_nlink != 1 { return "it has \(info.st_nlink) hard links" }
        if info.st_size > maxBytes { return "it holds \(info.st_size) bytes, more than \(maxBytes)" }
        return nil
    }

    /// Writes every byte of `bytes` at `offset` of the open file `descriptor` (`pwrite`, again after a partial write
    /// or `EINTR`).
    /// - Returns: 0, or the `errno` of the write that failed.
    package static func write(_ bytes: [UInt8], at offset: Int, to descriptor: Int32) -> Int32 {
        bytes.withUnsafeBytes { buffer -> Int32 in
            var done = 0
            while done < buffer.count {
                guard let base = buffer.baseAddress else { return EINVAL }
                let count = pwrite(descriptor, base + done, buffer.count - done, off_t(offset + done))
                if count < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                done += count
            }
            return 0
        }
    }
}
