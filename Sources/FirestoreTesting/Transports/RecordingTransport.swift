import FirestoreREST
import Foundation
import Synchronization

/// An `HTTPTransport` that passes every request to a live transport and records the exchange, so that a
/// ``ReplayTransport`` can serve it later without a server.
///
/// - The caller gets the live response untouched; the recording keeps the request in recorded form
///   (``Cassette/Request/init(_:)``: path and query without host, canonical JSON body) with only the headers
///   in `Options.requestHeaders`, and the response verbatim with only `Options.responseHeaders`.
/// - Secrets never reach the disk: ``cassette`` and every save go through `Options.scrubber` (see
///   ``SecretScrubber``), while the live exchange keeps the real values.
/// - Failed responses (4xx, 5xx, a 429 with `Retry-After`) are recorded like any other. A request that got no
///   response because of a timeout, a reset or a refused connection is recorded with its ``Cassette/Failure``
///   instead of a response (a replay throws the same error); any other error of the live transport (TLS
///   verification, cancellation) is not recorded. Either way the error is passed on.
/// - Interactions are kept in the order their requests were sent, each with the time since the previous
///   request started and its own duration, measured on `Options.clock`.
///
/// With `savingTo` set, each interaction is added to the cassette file as soon as every request sent before it
/// has its response (or failed), in bounded work per interaction (the file is always exactly
/// what ``Cassette/jsonData()`` of the recording so far gives, and recording n interactions writes O(n) bytes in
/// all). A session ended by Ctrl-C, or killed at any moment (SIGKILL), leaves a file that loads with everything
/// recorded before the end (`RecordingKillLiveTests`). The whole file is rewritten only for the first interaction
/// and when an interaction brings a new secret that the ones already written must be scrubbed of.
///
/// Listen streams: a client on this transport whose live transport carries them (a `CurlTransport`) listens
/// through it, and each Listen call is recorded as a ``Cassette/ListenSession`` (its requests and responses in
/// proto3 JSON with their times, and how it ended), scrubbed like the rest.
///
/// gRPC calls: a `.grpc` client records each unary or server-streaming call as one interaction (`POST` to the method path),
/// numbered in send order when the call starts; an `.automatic` client records REST exchanges.
public final class RecordingTransport: HTTPTransport {
    /// What to keep and how to measure time.
    public struct Options: Sendable {
        /// Request headers kept (lower-case names); others (`user-agent`, `content-length`, ...) are dropped.
        public var requestHeaders: Set<String>
        /// Response headers kept (lower-case names); others (`date`, `content-length`, `content-encoding`,
        /// which describe the wire and not the decoded body) are dropped.
        public var responseHeaders: Set<String>
        /// The scrubber applied before a cassette is handed out or saved.
        public var scrubber: SecretScrubber
        /// The clock that times interactions.
        public var clock: any Clock<Duration>

        /// Options with the documented defaults.
        public init(
            requestHeaders: Set<String> = Self.standardRequestHeaders,
            responseHeaders: Set<String> = Self.standardResponseHeaders, scrubber: SecretScrubber = .standard,
            clock: any Clock<Duration> = ContinuousClock()
        ) {
            self.requestHeaders = Set(requestHeaders.map { $0.lowercased() })
            self.responseHeaders = Set(responseHeaders.map { $0.lowercased() })
            self.scrubber = scrubber
            self.clock = clock
        }

        /// `accept`, `authorization` (scrubbed), `content-type`, `x-goog-request-params`, `x-goog-user-project`.
        public static let standardRequestHeaders: Set<String> = [
            "accept", "authorization", "content-type", "x-goog-request-params", "x-goog-user-project",
        ]
        /// `content-type`, `location`, `retry-after`, `www-authenticate`.
        public static let standardResponseHeaders: Set<String> = [
            "content-type", "location", "retry-after", "www-authenticate",
        ]
    }

    private struct Entry {
        var sequence: Int
        var start: Duration
        var duration: Duration
        var request: Cassette.Request
        var response: Cassette.Response
        var failure: Cassette.Failure?
    }

    private struct State {
        var nextSequence = 0
        /// Requests the live transport failed (never recorded).
        var failures = 0
        var entries: [Entry] = []
        /// Finished interactions not in the file yet (an earlier request still runs), by sequence number.
        var pending: [Int: Entry] = [:]
        /// Requests that got no response, so are never recorded.
        var failed: Set<Int> = []
        /// The sequence number the file waits for next.
        var nextToWrite = 0
        /// The interactions in the file, unscrubbed, in order.
        var written: [Entry] = []
        /// The secrets found in them.
        var secrets: Set<String> = []
        var file: CassetteFile?
    }

    /// The transport requests go to.
    public let live: any HTTPTransport
    /// The file rewritten after every interaction, or `nil`.
    public let path: String?
    /// The options in use.
    public let options: Options
    private let base: [Cassette.Interaction]
    private let stopwatch: Stopwatch
    private let state = Mutex(State())
    /// The Listen calls recorded through ``makeListenChannel(for:)``.
    let listens: ListenSessionRecorder

    /// A recorder in front of `live`.
    /// - Parameters:
    ///   - live: the transport that talks to the server, e.g. a `CurlTransport`.
    ///   - base: interactions that come first in ``cassette`` (for appending new episodes to a cassette).
    ///   - path: when given, the cassette file written after every interaction.
    ///   - options: headers kept, scrubber and clock.
    public init(
        wrapping live: any HTTPTransport, appendingTo base: Cassette = Cassette(), savingTo path: String? = nil,
        options: Options = Options()
    ) {
        self.live = live
        self.base = base.interactions
        self.path = path
        self.options = options
        self.stopwatch = Stopwatch(options.clock)
        self.listens = ListenSessionRecorder(base: base.listenSessions, clock: options.clock)
        if let path { state.withLock { $0.file = CassetteFile(path: path) } }
    }

    /// Sends `request` through the live transport and records the exchange.
    /// - Throws: whatever the live transport throws (nothing is recorded then); `FirestoreError` `.dataLoss`
    ///   when the cassette file cannot be written (the response is then lost to the caller too, so a broken
    ///   recording is never mistaken for a good one).
    public func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        let (sequence, start) = beginExchange()
        let response: HTTPResponse
        do {
            response = try await live.send(request)
        } catch {
            if let failure = Cassette.Failure(recording: error, of: request) {
                try record(
                    sequence: sequence, start: start, request: request, response: Cassette.Response(status: 0),
                    failure: failure)
                throw error
            }
            try dropExchange(sequence)
            throw error
        }
        var recordedResponse = Cassette.Response(response)
        recordedResponse.headers.removeAll { !options.responseHeaders.contains($0.name) }
        try record(sequence: sequence, start: start, request: request, response: recordedResponse, failure: nil)
        return response
    }

    /// Numbers the next exchange (a request, or a gRPC call) in send order and notes when it started.
    func beginExchange() -> (sequence: Int, start: Duration) {
        state.withLock { state in
            defer { state.nextSequence += 1 }
            return (state.nextSequence, stopwatch.elapsed)
        }
    }

    /// Leaves the exchange `sequence` out of the recording (it failed in a way that is not recorded), so that the
    /// file does not wait for it.
    /// - Throws: `FirestoreError` `.dataLoss` when the cassette file cannot be written.
    func dropExchange(_ sequence: Int) throws(FirestoreError) {
        let saved = state.withLock { state -> Result<Void, FirestoreError> in
            state.failures += 1
            guard state.file != nil else { return .success(()) }
            state.failed.insert(sequence)
            return flush(&state)
        }
        if case .failure(let failure) = saved {
            throw FirestoreError(code: .dataLoss, message: "recording: \(failure.message)")
        }
    }

    /// Adds the exchange `sequence` (its response, or the failure it got instead) to the recording and the file.
    /// - Throws: `FirestoreError` `.dataLoss` when the cassette file cannot be written.
    func record(
        sequence: Int, start: Duration, request: HTTPRequest, response recordedResponse: Cassette.Response,
        failure: Cassette.Failure?
    ) throws(FirestoreError) {
        let end = stopwatch.elapsed
        var recordedRequest = Cassette.Request(request)
        recordedRequest.headers.removeAll { !options.requestHeaders.contains($0.name) }
        let entry = Entry(
            sequence: sequence, start: start, duration: end - start, request: recordedRequest,
            response: recordedResponse, failure: failure)
        let saved: Result<Void, FirestoreError> = state.withLock { state in
            let position = state.entries.lastIndex { $0.sequence < sequence }.map { $0 + 1 } ?? 0
            state.entries.insert(entry, at: position)
            guard state.file != nil else { return .success(()) }
            state.pending[sequence] = entry
            return flush(&state)
        }
        if case .failure(let error) = saved {
            throw FirestoreError(code: .dataLoss, message: "recording: \(error.message)")
        }
    }

    /// Bytes written to the cassette file (and its journal) so far; about twice the file's size after a long
    /// recording, never the square of it.
    package var bytesWritten: Int {
        state.withLock { $0.file?.bytesWritten ?? 0 }
    }

    /// Writes every finished interaction whose predecessors are all finished to the file, in order.
    private func flush(_ state: inout State) -> Result<Void, FirestoreError> {
        while state.nextToWrite < state.nextSequence {
            let sequence = state.nextToWrite
            if state.failed.remove(sequence) != nil {
                state.nextToWrite += 1
                continue
            }
            guard let entry = state.pending.removeValue(forKey: sequence) else { break }
            state.nextToWrite += 1
            do throws(FirestoreError) {
                try write(entry, &state)
            } catch {
                return .failure(error)
            }
        }
        return .success(())
    }

    /// Adds `entry` to the file: appended, scrubbed of every secret found so far; or, when it brings a secret that
    /// must also leave the interactions already written, the whole file rewritten.
    private func write(_ entry: Entry, _ state: inout State) throws(FirestoreError) {
        guard var file = state.file else { return }
        defer { state.file = file }
        let previousStart = state.written.last?.start
        state.written.append(entry)
        let raw = Self.interaction(entry, previousStart: previousStart)
        let scrubber = options.scrubber
        let before = scrubber.propagated(state.secrets)
        state.secrets.formUnion(scrubber.secrets(in: raw))
        let everywhere = scrubber.propagated(state.secrets)
        let written = state.written
        let base = self.base
        let listens = self.listens
        let whole = { Self.cassette(base: base, entries: written, listens: listens, scrubber: scrubber) }
        if everywhere != before, written.count > 1 {
            try file.rewrite(whole())
        } else {
            try file.append(scrubber.scrub(raw, also: everywhere), rewriting: whole)
        }
    }

    /// What was recorded so far, after the base interactions, secrets scrubbed.
    /// - Complexity: O(n · s) for n recorded bytes and s secrets.
    public var cassette: Cassette {
        state.withLock { Self.cassette(base: base, entries: $0.entries, listens: listens, scrubber: options.scrubber) }
    }

    /// Rewrites the cassette file, when there is one, after a Listen session changed: the interactions written so
    /// far and the Listen sessions as they stand (later interactions are appended after them). O(file size).
    /// - Throws: `FirestoreError` `.dataLoss` when the file cannot be written.
    func saveListenSessions() throws(FirestoreError) {
        let saved: Result<Void, FirestoreError> = state.withLock { state in
            guard var file = state.file else { return .success(()) }
            defer { state.file = file }
            let cassette = Self.cassette(
                base: base, entries: state.written, listens: listens, scrubber: options.scrubber)
            return Result { () throws(FirestoreError) in try file.rewrite(cassette) }
        }
        if case .failure(let error) = saved {
            throw FirestoreError(code: .dataLoss, message: "recording: \(error.message)")
        }
    }

    /// Ends the recording, for a process about to exit: every Listen call still open is recorded as ended by the
    /// client (`cancelledByClient`, as when a listener leaves), the cassette file is written one last time, and
    /// nothing is written to it afterwards (an exchange or Listen message still in flight is left out, so the file
    /// is never cut off by the exit in the middle of a write). Without a file it only ends the open calls in
    /// ``cassette``. Calling it again does nothing more.
    /// - Throws: `FirestoreError` `.dataLoss` when the last write fails (the file then holds what the write
    ///   before it left: complete, without the last messages).
    public func finishRecording() throws(FirestoreError) {
        listens.endOpenSessions(.cancelledByClient)
        let saved: Result<Void, FirestoreError> = state.withLock { state in
            guard var file = state.file else { return .success(()) }
            state.file = nil
            let cassette = Self.cassette(
                base: base, entries: state.written, listens: listens, scrubber: options.scrubber)
            return Result { () throws(FirestoreError) in try file.rewrite(cassette) }
        }
        if case .failure(let error) = saved {
            throw FirestoreError(code: .dataLoss, message: "recording: \(error.message)")
        }
    }

    /// How many interactions of the cassette have been sent so far (the base's, and the requests started here
    /// that have not failed), for ``Cassette/ListenSession/Message/afterInteractions``. A request in flight that
    /// fails later is still counted.
    var interactionsSent: Int {
        state.withLock { base.count + $0.nextSequence - $0.failures }
    }

    /// The number of interactions recorded by this transport (the base not counted).
    package var recordedCount: Int {
        state.withLock { $0.entries.count }
    }

    /// Writes ``cassette`` to `path` atomically.
    /// - Throws: `FirestoreError` `.unavailable` naming the path when it cannot be written.
    public func save(toFile path: String) throws(FirestoreError) {
        try cassette.write(toFile: path)
    }

    private static func cassette(
        base: [Cassette.Interaction], entries: [Entry], listens: ListenSessionRecorder, scrubber: SecretScrubber
    ) -> Cassette {
        var interactions = base
        var previousStart: Duration?
        for entry in entries {
            interactions.append(interaction(entry, previousStart: previousStart))
            previousStart = entry.start
        }
        let scrubbed = scrubber.scrub(
            Cassette(interactions: Array(interactions.dropFirst(base.count)), listenSessions: listens.recorded))
        return Cassette(
            interactions: base + scrubbed.interactions, listenSessions: listens.base + scrubbed.listenSessions)
    }

    /// The interaction of `entry`, its `elapsed` counted from the start of the one before (`nil`: the first).
    private static func interaction(_ entry: Entry, previousStart: Duration?) -> Cassette.Interaction {
        let elapsed = previousStart.map { entry.start - $0 } ?? .zero
        var interaction = Cassette.Interaction(
            request: entry.request, response: entry.response, elapsed: milliseconds(elapsed),
            duration: milliseconds(entry.duration))
        interaction.failure = entry.failure
        return interaction
    }

    /// Seconds rounded to the millisecond, so recorded times stay short in the file.
    private static func milliseconds(_ duration: Duration) -> Double {
        (Stopwatch.seconds(duration) * 1000).rounded() / 1000
    }
}
