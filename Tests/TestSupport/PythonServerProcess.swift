import Foundation

/// A loopback server run as a Python child process (an inline `-c` script or one of the repository's `Scripts/`)
/// that prints its address on its first line of stdout once it listens (`PORT`, or `LISTENING 127.0.0.1:PORT`) and
/// exits when its stdin closes (``ParentWatch``). Its stdout and stderr are read from the start on threads of their
/// own (``PipeCollector``), so a chatty child never blocks on a full pipe. (Unchecked: `Process` and `Pipe` are not
/// `Sendable`; every stored property is a constant, and `stop()` is safe from any thread.)
package final class PythonServerProcess: @unchecked Sendable {
    /// What the child runs.
    package enum Program: Sendable {
        /// `python3 -c SCRIPT`.
        case inline(String)
        /// `Scripts/NAME` of the repository.
        case repositoryScript(String)
    }

    /// The child did not print its address: it ended, or printed none within the time allowed.
    package struct StartError: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    package let process: Process
    /// The child's stdin: closing it ends the child.
    package let input: Pipe
    /// Everything the child wrote on stdout, its first line included.
    package let output: PipeCollector
    /// Everything the child wrote on stderr.
    package let errors: PipeCollector
    /// The first line the child printed.
    package let firstLine: String
    /// The port the child printed (the digits after the first line's last `:`, or the whole line's).
    package let port: Int

    /// The repository's root folder.
    package static var root: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
    }

    /// Starts the child under `python` (by default `python3` from `PATH`) and blocks the calling thread until it
    /// printed its address, for up to `timeout` seconds (call it on a thread of its own: ``BlockingWork/run(_:)``).
    /// - Throws: ``StartError`` (with what the child wrote on stderr) when it ended or printed no port; the child
    ///   is ended.
    package init(_ program: Program, arguments: [String] = [], python: String? = nil, timeout: Double = 30) throws {
        let process = Process()
        let interpreter: [String]
        if let python {
            process.executableURL = URL(fileURLWithPath: python)
            interpreter = []
        } else {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            interpreter = ["python3"]
        }
        let name: String
        switch program {
        case .inline(let script):
            process.arguments = interpreter + ["-c", script] + arguments
            name = "python3 -c"
        case .repositoryScript(let script):
            process.arguments = interpreter + [Self.root.appendingPathComponent("Scripts/\(script)").path] + arguments
            name = "Scripts/\(script)"
        }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let output = PipeCollector(out.fileHandleForReading)
        let errors = PipeCollector(err.fileHandleForReading)
        let deadline = Date().addingTimeInterval(timeout)
        while output.lines.isEmpty, !output.isEnded, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let first = output.lines.first ?? ""
        let digits = first.split(separator: ":").last.map { $0.filter(\.isNumber) } ?? ""
        guard let port = Int(digits) else {
            try? input.fileHandleForWriting.close()
            process.end()
            throw StartError(
                description: "\(name) did not start: "
                    + String(decoding: errors.data, as: UTF8.self).suffix(2000))
        }
        self.process = process
        self.input = input
        self.output = output
        self.errors = errors
        self.firstLine = first
        self.port = port
    }

    /// Ends the child without waiting for it (closing its stdin, then ``Foundation/Process/end(grace:)``).
    package func stop() {
        try? input.fileHandleForWriting.close()
        process.end()
    }
}
