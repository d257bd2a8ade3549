import FirestoreREST
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The rules for files made at predictable names beside a user's file (`SideFile`, issue 24): a new one is created
/// only where nothing exists, a reused one must be a regular single-link file of the user's own, not too large.
@Suite(.timeLimit(.minutes(1))) struct SideFileTests {
    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "side-file-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        return folder
    }

    /// Another user's file is refused even when it is otherwise a fine lock file (a test planting one needs root;
    /// the rule is checked on the `stat` of a file of the test's own, as seen by another user ID).
    @Test func theRuleForAReusedFile() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/lock"
        try Data("123\n".utf8).write(to: URL(fileURLWithPath: path))
        var info = stat()
        #expect(stat(path, &info) == 0)
        #expect(SideFile.refusal(of: info, user: info.st_uid, maxBytes: 64) == nil)
        #expect(
            SideFile.refusal(of: info, user: info.st_uid + 1, maxBytes: 64)
                == "it belongs to user \(info.st_uid), not to this user (\(info.st_uid + 1))")
        #expect(SideFile.refusal(of: info, user: info.st_uid, maxBytes: 3) == "it holds 4 bytes, more than 3")
        #expect(link(path, folder + "/second") == 0)
        #expect(stat(path, &info) == 0)
        #expect(SideFile.refusal(of: info, user: info.st_uid, maxBytes: 64) == "it has 2 hard links")
        #expect(stat(folder, &info) == 0)
        #expect(SideFile.refusal(of: info, user: info.st_uid, maxBytes: 64) == "it is not a regular file")
    }

    /// A new file is made only where nothing is: an existing file, a link and a dangling link are refused and left.
    @Test func aNewFileIsMadeOnlyWhereNothingIs() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let existing = folder + "/existing"
        try Data("kept\n".utf8).write(to: URL(fileURLWithPath: existing))
        #expect(symlink(existing, folder + "/link") == 0)
        #expect(symlink(folder + "/nowhere", folder + "/dangling") == 0)
        for name in ["existing", "link", "dangling"] {
            #expect(throws: SideFile.Refusal("something is already there")) {
                _ = try SideFile.createNew(folder + "/" + name, mode: 0o644)
            }
        }
        #expect(FileManager.default.contents(atPath: existing) == Data("kept\n".utf8))
        #expect(!FileManager.default.fileExists(atPath: folder + "/nowhere"))
        let descriptor = try SideFile.createNew(folder + "/new", mode: 0o644)
        #expect(SideFile.write(Array("abc".utf8), at: 1, to: descriptor) == 0)
        close(descriptor)
        #expect(FileManager.default.contents(atPath: folder + "/new") == Data([0, 97, 98, 99]))
    }
}
