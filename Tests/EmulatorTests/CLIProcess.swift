import Foundation

/// Runs the built `firestore-feed` executable (it sits beside the test binary in the build folder).
struct CLIProcess {
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    static var executable: URL { builtExecutable("firestore-feed") }

    /// The package's executable `name` in the build folder.
    static func builtExecutable(_ name: String) -> URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent(name)
    }

    let process = Process()
    let stdoutPipe = Pipe()
    let stderrPipe = Pipe()

    /// Starts the tool (or another executable of the package) with `arguments`; FIRESTORE_EMULATOR_HOST is
    /// removed from its environment so only the flags count.
    init(_ arguments: [String], executable: URL = Self.executable) throws {
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["FIRESTORE_EMULATOR_HOST"] = nil
        process.environment = environment
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    /// Waits for exit (killing the process after `timeout` seconds) and collects its output.
    func finish(timeout: Double = 60) async -> Result {
        let deadline = Date().addingTimeInterval(timeout)
        async let stdoutData = Self.readToEnd(stdoutPipe.fileHandleForReading)
        async let stderrData = Self.readToEnd(stderrPipe.fileHandleForReading)
        while process.isRunning {
            if Date() > deadline { process.terminate() }
            try? await Task.sleep(for: .milliseconds(20))
        }
        // The process has ended, so this returns at once; it runs Foundation's end-of-process work on this
        // thread's run loop, which a cooperative thread never runs otherwise: without it every Process and
        // what it holds (arguments, environment, pipes) stays allocated (found by Scripts/sanitize address).
        process.waitUntilExit()
        return Result(status: process.terminationStatus,
                      stdout: String(decoding: await stdoutData, as: UTF8.self),
                      stderr: String(decoding: await stderrData, as: UTF8.self))
    }

    /// Everything `handle` delivers until end of file, read on a thread of its own: a blocking read on the
    /// cooperative pool (two threads on a two-core machine) would stall every other test while the tool runs.
    static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: handle.readDataToEndOfFile()) }.start()
        }
    }

    /// Runs to completion.
    static func run(_ arguments: [String], executable: URL = Self.executable, timeout: Double = 60) async throws
        -> Result
    {
        try await CLIProcess(arguments, executable: executable).finish(timeout: timeout)
    }
}

extension CLIProcess: @unchecked Sendable {}
