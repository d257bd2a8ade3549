import Foundation

/// A loopback server run as a `python3 -c SCRIPT ARGUMENTS...` child process that prints its port on its first
/// line of stdout once it listens, and exits when its stdin closes (``ParentWatch``).
package struct PythonServerProcess {
    package let process: Process
    /// The child's stdin: closing it ends the child.
    package let input: Pipe
    /// The port the child printed.
    package let port: Int

    /// Starts the child and blocks the calling thread until it printed its port (call it on a thread of its own:
    /// ``BlockingWork/run(_:)``).
    /// - Throws: ``LoopbackHTTPServer/ServerError/didNotStart`` when it ended or printed no port.
    package init(script: String, arguments: [String] = []) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        let input = Pipe()
        process.standardOutput = output
        process.standardInput = input
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else {
                process.end()
                throw LoopbackHTTPServer.ServerError.didNotStart
            }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).filter(\.isNumber)) else {
            process.end()
            throw LoopbackHTTPServer.ServerError.didNotStart
        }
        self.process = process
        self.input = input
        self.port = port
    }

    /// Ends the child without waiting for it (``Foundation/Process/end(grace:)``).
    package func stop() {
        try? input.fileHandleForWriting.close()
        process.end()
    }
}
