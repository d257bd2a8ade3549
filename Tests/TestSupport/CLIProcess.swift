import Foundation

/// Runs the built `firestore-feed` executable (it sits beside the test binary in the build folder).
package struct CLIProcess {
    package struct Result {
        package let status: Int32
        package let stdout: String
        package let stderr: String
        package var lines: [String] { stdout.split(separator: "\n").map(String.init) }
    }

    package static var executable: URL { builtExecutable("firestore-feed") }

    /// The package's executable `name` in the build folder.
    package static func builtExecutable(_ name: String) -> URL {
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        return testBinary.deletingLastPathComponent().appendingPathComponent(name)
    }

    package let process = Process()
    /// Ends the process when the last copy of this value goes away, e.g. when a test throws before ``finish``.
    private let guardian: EndOnRelease
    private let stdoutPipe = Pipe()
    private let stderrPipe = Pipe()
    /// The tool's standard output, as it arrives.
    package let stdout: PipeCollector
    /// The tool's standard error, as it arrives.
    package let stderr: PipeCollector

    /// Starts the tool (or another executable of the package) with `arguments`, in `environment` (this process's
    /// by default); FIRESTORE_EMULATOR_HOST is removed from it so only the flags count, unless
    /// `keepingEmulatorHost` (a test of the variable itself).
    package init(
        _ arguments: [String], executable: URL = Self.executable,
        environment: [String: String] = ProcessInfo.processInfo.environment, keepingEmulatorHost: Bool = false
    ) throws {
        process.executableURL = executable
        process.arguments = arguments
        var environment = environment
        if !keepingEmulatorHost { environment["FIRESTORE_EMULATOR_HOST"] = nil }
        process.environment = environment
        process.standardOutput = stdoutPipe
        process.standardError = stderrPipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        guardian = EndOnRelease(process)
        stdout = PipeCollector(stdoutPipe.fileHandleForReading)
        stderr = PipeCollector(stderrPipe.fileHandleForReading)
    }

    /// Waits for exit (ending the process after `timeout` seconds) and collects its output; never blocks a
    /// thread of the cooperative pool.
    package func finish(timeout: Double = 60) async -> Result {
        async let stdoutData = stdout.all()
        async let stderrData = stderr.all()
        let status = await process.exitStatus(timeout: timeout)
        return Result(
            status: status,
            stdout: String(decoding: await stdoutData, as: UTF8.self),
            stderr: String(decoding: await stderrData, as: UTF8.self))
    }

    /// Everything `handle` delivers until end of file, read on a thread of its own: a blocking read on the
    /// cooperative pool (two threads on a two-core machine) would stall every other test while the tool runs.
    package static func readToEnd(_ handle: FileHandle) async -> Data {
        await withCheckedContinuation { continuation in
            Thread { continuation.resume(returning: handle.readDataToEndOfFile()) }.start()
        }
    }

    /// Runs to completion.
    package static func run(_ arguments: [String], executable: URL = Self.executable, timeout: Double = 60) async throws
        -> Result
    {
        try await CLIProcess(arguments, executable: executable).finish(timeout: timeout)
    }
}

extension CLIProcess: @unchecked Sendable {}

/// Ends a child process (``Foundation/Process/end(grace:)``) when released.
package final class EndOnRelease: @unchecked Sendable {
    package let process: Process
    package init(_ process: Process) { self.process = process }
    deinit { process.end() }
}
