import FirestoreREST
import Foundation
import Synchronization

/// An ``HTTPTransport`` that passes every request to a live transport and records the exchange, so that a
/// ``ReplayTransport`` can serve it later without a server.
///
/// - The caller gets the live response untouched; the recording keeps the request in recorded form
///   (``Cassette/Request/init(_:)``: path and query without host, canonical JSON body) with only the headers
///   in ``Options/requestHeaders``, and the response verbatim with only ``Options/responseHeaders``.
/// - Secrets never reach the disk: ``cassette`` and every save go through ``Options/scrubber`` (see
///   ``SecretScrubber``), while the live exchange keeps the real values.
/// - Failed responses (4xx, 5xx, a 429 with `Retry-After`) are recorded like any other. A request that got no
///   response (the live transport threw) is not recorded; the error is passed on.
/// - Interactions are kept in the order their requests were sent, each with the time since the previous
///   request started and its own duration, measured on ``Options/clock``.
///
/// With `savingTo` set, the cassette file is rewritten (atomically) after every interaction, so a session
/// ended by Ctrl-C keeps everything recorded so far.
///
/// Listen streams: a client on this transport whose live transport carries them (a ``CurlTransport``) listens
/// through it, and each Listen call is recorded as a ``Cassette/ListenSession`` (its requests and responses in
/// proto3 JSON with their times, and how it ended), scrubbed like the rest.
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
    }

    private struct State {
        var nextSequence = 0
        /// Requests the live transport failed (never recorded).
        var failures = 0
        var entries: [Entry] = []
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
    ///   - live: the transport that talks to the server, e.g. a ``CurlTransport``.
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
    }

    /// Sends `request` through the live transport and records the exchange.
    /// - Throws: whatever the live transport throws (nothing is recorded then); ``FirestoreError`` `.dataLoss`
    ///   when the cassette file cannot be written (the response is then lost to the caller too, so a broken
    ///   recording is never mistaken for a good one).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let (sequence, start) = state.withLock { state in
            defer { state.nextSequence += 1 }
            return (state.nextSequence, stopwatch.elapsed)
        }
        let response: HTTPResponse
        do {
            response = try await live.send(request)
        } catch {
            state.withLock { $0.failures += 1 }
            throw error
        }
        let end = stopwatch.elapsed
        var recordedRequest = Cassette.Request(request)
        recordedRequest.headers.removeAll { !options.requestHeaders.contains($0.name) }
        var recordedResponse = Cassette.Response(response)
        recordedResponse.headers.removeAll { !options.responseHeaders.contains($0.name) }
        let entry = Entry(
            sequence: sequence, start: start, duration: end - start, request: recordedRequest,
            response: recordedResponse)
        let saved: Result<Void, FirestoreError> = state.withLock { state in
            let position = state.entries.firstIndex { $0.sequence > sequence } ?? state.entries.endIndex
            state.entries.insert(entry, at: position)
            guard let path else { return .success(()) }
            let cassette = Self.cassette(
                base: base, entries: state.entries, listens: listens, scrubber: options.scrubber)
            return Result { () throws(FirestoreError) in try cassette.write(toFile: path) }
        }
        if case .failure(let error) = saved {
            throw FirestoreError(code: .dataLoss, message: "recording: \(error.message)")
        }
        return response
    }

    /// What was recorded so far, after the base interactions, secrets scrubbed.
    /// - Complexity: O(n · s) for n recorded bytes and s secrets.
    public var cassette: Cassette {
        state.withLock { Self.cassette(base: base, entries: $0.entries, listens: listens, scrubber: options.scrubber) }
    }

    /// Rewrites the cassette file, when there is one, after a Listen session changed.
    /// - Throws: ``FirestoreError`` `.dataLoss` when the file cannot be written.
    func saveListenSessions() throws(FirestoreError) {
        guard let path else { return }
        let saved: Result<Void, FirestoreError> = state.withLock { state in
            let cassette = Self.cassette(
                base: base, entries: state.entries, listens: listens, scrubber: options.scrubber)
            return Result { () throws(FirestoreError) in try cassette.write(toFile: path) }
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
    public var recordedCount: Int {
        state.withLock { $0.entries.count }
    }

    /// Writes ``cassette`` to `path` atomically.
    /// - Throws: ``FirestoreError`` `.unavailable` naming the path when it cannot be written.
    public func save(toFile path: String) throws(FirestoreError) {
        try cassette.write(toFile: path)
    }

    private static func cassette(
        base: [Cassette.Interaction], entries: [Entry], listens: ListenSessionRecorder, scrubber: SecretScrubber
    ) -> Cassette {
        var interactions = base
        var previousStart: Duration?
        for entry in entries {
            let elapsed = previousStart.map { entry.start - $0 } ?? .zero
            previousStart = entry.start
            interactions.append(
                Cassette.Interaction(
                    request: entry.request, response: entry.response, elapsed: milliseconds(elapsed),
                    duration: milliseconds(entry.duration)))
        }
        let scrubbed = scrubber.scrub(
            Cassette(interactions: Array(interactions.dropFirst(base.count)), listenSessions: listens.recorded))
        return Cassette(
            interactions: base + scrubbed.interactions, listenSessions: listens.base + scrubbed.listenSessions)
    }

    /// Seconds rounded to the millisecond, so recorded times stay short in the file.
    private static func milliseconds(_ duration: Duration) -> Double {
        (Stopwatch.seconds(duration) * 1000).rounded() / 1000
    }
}
