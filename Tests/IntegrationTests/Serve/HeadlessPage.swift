import FirestoreREST
import FirestoreTestSupport
import Foundation

/// `Scripts/headless-page`: a page loaded in headless Chromium (Debian's `chromium`, which `Scripts/ensure-deps
/// --tests` installs), its live list reported as JSON lines each time it changes; screenshots on request.
final class HeadlessPage: @unchecked Sendable {
    /// One report of the page's state.
    struct State: Equatable {
        var state: String?
        var lastEventID: String?
        /// The `data-name` of each `<li>` of `<ul id="list">`, in order.
        var names: [String]
        /// The text of each `<li>`.
        var texts: [String]
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    private let process = Process()
    private let input = Pipe()
    private let output: PipeCollector
    private let errors: PipeCollector
    private let guardian: EndOnRelease

    /// Where Debian puts the browser; `PATH` is searched too.
    static func chromiumPath() throws -> String {
        let candidates =
            ["/usr/bin/chromium"]
            + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/chromium" }
        guard let path = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw Failure(
                description: "chromium is not installed: the browser tests need it; run Scripts/ensure-deps --tests "
                    + "(it installs Debian's chromium package) or apt-get install chromium")
        }
        return path
    }

    /// Opens `url` in a window of `width` × `height` pixels.
    init(url: String, width: Int = 880, height: Int = 560) throws {
        let chromium = try Self.chromiumPath()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", PythonServerProcess.root.appendingPathComponent("Scripts/headless-page").path, url,
            "--window", "\(width)x\(height)", "--chromium", chromium,
        ]
        let out = Pipe()
        let err = Pipe()
        process.standardInput = input
        process.standardOutput = out
        process.standardError = err
        try process.run()
        guardian = EndOnRelease(process)
        output = PipeCollector(out.fileHandleForReading)
        errors = PipeCollector(err.fileHandleForReading)
    }

    /// The states reported so far.
    var states: [State] {
        output.lines.compactMap { line -> State? in
            guard let json = try? JSONValue.parse(line), json["event"] == "state" else { return nil }
            return State(
                state: json["state"]?.stringValue, lastEventID: json["lastEventId"]?.stringValue,
                names: json["names"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                texts: json["texts"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }
    }

    /// Waits until a reported state satisfies `condition` (a hang guard of `timeout` seconds); the last state.
    func state(until condition: (State) -> Bool, timeout: Double = 20) async throws -> State {
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline, !output.isEnded {
            if let last = states.last, condition(last) { return last }
            try await Task.sleep(for: .milliseconds(20))
        }
        if let last = states.last, condition(last) { return last }
        throw Failure(
            description: "the page never reached the state; last \(String(describing: states.last)); stderr: "
                + String(decoding: errors.data, as: UTF8.self))
    }

    /// Saves a PNG of the window at `path`.
    func screenshot(to path: String, timeout: Double = 20) async throws {
        input.fileHandleForWriting.write(Data("screenshot \(path)\n".utf8))
        let deadline = ContinuousClock.now + .seconds(timeout)
        while ContinuousClock.now < deadline, !output.isEnded {
            if output.lines.contains(where: { $0.contains(#""event": "screenshot""#) }) { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw Failure(description: "no screenshot: " + String(decoding: errors.data, as: UTF8.self))
    }

    /// Closes the page and the browser.
    func close() async {
        try? input.fileHandleForWriting.close()
        _ = await process.exitStatus(timeout: 10)
    }
}
