import Foundation

/// `Scripts/fault-proxy` in front of the emulator: injects 503, 429 with Retry-After, resets, truncated
/// bodies, invalid JSON, HTML and delays into runQuery and batchGet responses (or, with `faults` and `only`,
/// lost responses and ABORTED into commits), from a seeded generator.
package final class FaultProxy: @unchecked Sendable {
    package struct StartError: Error, CustomStringConvertible { package let description: String }

    package let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    /// `127.0.0.1:PORT` of the proxy.
    package let host: String
    /// Where the proxy writes one line per request, `fault=<kind|none> METHOD PATH`.
    package let logURL = FileManager.default.temporaryDirectory
        .appendingPathComponent("fault-proxy-\(UUID().uuidString).log")

    package static var script: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/fault-proxy")
    }

    /// Starts the proxy and waits (blocking) until it listens: call ``start(target:rate:seed:faults:only:)`` from
    /// async code.
    private init(target: String, rate: Double, seed: Int, faults: [String]?, only: [String]?) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        var arguments = [
            "python3", Self.script.path, "--target", target, "--rate", String(rate),
            "--seed", String(seed), "--exit-on-eof",
        ]
        if let faults { arguments += ["--faults", faults.joined(separator: ",")] }
        if let only { arguments += ["--only", only.joined(separator: ",")] }
        process.arguments = arguments
        process.standardInput = input
        process.standardOutput = output
        _ = FileManager.default.createFile(atPath: logURL.path, contents: nil)
        process.standardError = try FileHandle(forWritingTo: logURL)
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("LISTENING ") else {
            throw StartError(description: "fault proxy did not start: \(text)")
        }
        host = String(text.dropFirst("LISTENING ".count))
    }

    /// The requests the proxy has seen so far, as `fault=<kind|none> METHOD PATH` lines in arrival order.
    package var requestLog: [String] {
        let text = (try? String(contentsOf: logURL, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").map(String.init).filter { $0.hasPrefix("fault=") }
    }

    /// Starts a proxy on a thread of its own (the start waits for the child process to listen).
    package static func start(target: String, rate: Double, seed: Int, faults: [String]? = nil, only: [String]? = nil)
        async throws -> FaultProxy
    {
        try await BlockingWork.run {
            try FaultProxy(target: target, rate: rate, seed: seed, faults: faults, only: only)
        }
    }

    /// Stops the proxy (closing its stdin, then ``Foundation/Process/end(grace:)``) without waiting for it.
    package func stop() {
        try? input.fileHandleForWriting.close()
        process.end()
    }

    deinit {
        if process.isRunning { process.end() }
        try? FileManager.default.removeItem(at: logURL)
    }
}
