import FirestoreFeedCLI
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The console's write loop (`ConsoleWriter.writeAll`) on pipes and descriptors of this process: no child
/// process, no network. It runs on threads of its own here, as in the tool, since it blocks on a slow reader.
@Suite(.timeLimit(.minutes(2))) struct ConsoleWriterTests {
    /// `work` on a thread of its own (it blocks), awaited.
    static func onThread<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: work()) }.start()
        }
    }

    @Test func everyByteReachesANonBlockingPipeInOrder() async throws {
        // Close-on-exec from the start (pipe2): a child another test spawns meanwhile must not inherit the write
        // end, or the reader would never see end of file. Glibc's module does not export pipe2 (a GNU extension).
        typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>, Int32) -> Int32
        let symbol = try #require(dlsym(nil, "pipe2"))
        var ends: [Int32] = [-1, -1]
        #expect(unsafeBitCast(symbol, to: Pipe2.self)(&ends, O_CLOEXEC) == 0)
        let (reader, writer) = (ends[0], ends[1])
        // Non-blocking, as a stdout shared with a program that set O_NONBLOCK: writes stop with EAGAIN when the
        // pipe (64 kB) is full, and the loop waits for the reader instead of failing.
        #expect(fcntl(writer, F_SETFL, fcntl(writer, F_GETFL) | O_NONBLOCK) == 0)
        let payload = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 % 251) }
        async let received = Self.onThread { () -> [UInt8] in
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 1000)
            while true {
                let got = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
                if got <= 0 { break }
                bytes += chunk[0..<got]
            }
            close(reader)
            return bytes
        }
        let failure = await Self.onThread { () -> Int32? in
            defer { close(writer) }
            return ConsoleWriter.writeAll(payload, to: writer)
        }
        #expect(failure == nil)
        let bytes = await received
        #expect(bytes.count == 300_000)
        #expect(bytes == payload)
    }

    @Test func aDescriptorOpenForReadingOnlyReportsEBADF() async {
        // What the tool's stdout is when it was started closed (StandardDescriptors.reserve()).
        let descriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        let failure = await Self.onThread { ConsoleWriter.writeAll(Array("line\n".utf8), to: descriptor) }
        #expect(failure == EBADF)
    }

    @Test func nothingToWriteIsNoWrite() async {
        let failure = await Self.onThread { ConsoleWriter.writeAll([], to: -1) }
        #expect(failure == nil)
    }
}
