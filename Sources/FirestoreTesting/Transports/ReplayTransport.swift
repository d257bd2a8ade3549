import FirestoreREST
import Foundation
import Synchronization

/// An `HTTPTransport` that answers from a ``Cassette``: the in-memory test double for code built on this
/// client, and the engine of the offline demo. In the recording modes it also records, through a
/// ``RecordingTransport`` in front of a live transport.
///
/// **Modes** (VCR terms, ``RecordMode``): `.none` replays only; `.once` records when there is no cassette
/// yet, else replays strictly; `.all` re-records everything; `.newEpisodes` replays what matches and records
/// the rest (appended to the cassette).
///
/// **Matching**: a request is compared in recorded, scrubbed form (``Cassette/Request/init(_:)``, then
/// `Options.scrubber`, so a live request carrying a real `key=` matches its recording's placeholder) with
/// `Options.matcher`, by default method, path, query and canonical JSON body (``CassetteMatcher/standard``).
///
/// **Order**: among the recorded interactions that match, the first one not yet played answers; identical
/// requests (a change feed polling the same query) therefore get their recorded responses in recorded order
/// (`ReplayOrderTests.identicalPollsGetTheirAnswersInRecordedOrderThenFail`). Past the last one, the request fails, unless `Options.allowPlaybackRepeats` is set:
/// then the last matching response answers again. With ``Ordering/session``, a response is also held back
/// until every interaction recorded before it has been played, so a concurrent session (a feed polling while
/// another task writes) replays in its recorded order. A held response never waits silently: when the
/// interaction it waits for is requested by nobody and nothing is played for `Options.stallTimeout` (real
/// time), its request fails with `.failedPrecondition` naming that interaction (a feed replayed without the
/// write recorded between two of its polls; `ReplayStallTests`).
///
/// **Time**: ``Pace/instant`` answers at once; ``Pace/recorded(speed:)`` answers each interaction at its
/// recorded moment (the start of its request plus its duration, measured from the first replayed one)
/// divided by `speed`, on `Options.clock` (inject an ``ImmediateClock`` to test pacing without waiting).
///
/// **Listen streams**: a Listen feed on this transport replays the cassette's ``Cassette/listenSessions``: a
/// call takes the first unplayed session that starts with the call's first request, then gets the recorded
/// responses in order, each at its recorded time after the call's start divided by the ``Pace`` speed (at once
/// with ``Pace/instant``), and ends as the recorded call ended. A cassette without a Listen session makes the
/// feed poll instead (`FeedEvent.fellBackToPolling(reason:)` says so). With ``Ordering/session`` a Listen response
/// is also held until the interactions the client had sent when it was recorded were played
/// (``Cassette/ListenSession/Message/afterInteractions``), so a snapshot follows the write that caused it;
/// otherwise Listen responses follow their call's own recorded times. A held response whose interaction nobody
/// requests, and a replayed call that can deliver nothing more (its next recorded message is a request the client
/// does not send, or every message was played and the recording ends with the client leaving), end the call with
/// `.failedPrecondition` saying so after `Options.stallTimeout`. `.once` without a cassette and `.all`
/// record Listen calls through `live`; `.newEpisodes` replays a call whose first request matches a session and
/// records the others.
///
/// **gRPC calls**: a cassette recorded by a `.grpc` client holds its unary and server-streaming calls as
/// interactions (`POST` to the method path, `content-type: application/grpc`); a call is matched and ordered like a
/// request and gets its recorded messages, then its recorded status. A client replays them under `.grpc`, and under `.automatic` when the cassette holds any
/// (`RPCRecordReplayLiveTests`).
///
/// **Errors**: a request that matches nothing throws `FirestoreError` `.failedPrecondition` naming the
/// closest recorded request and what differed; one whose matches were all played throws the same code
/// listing them. A recorded 4xx or 5xx is returned like any other response, and a recorded transport failure
/// (``Cassette/Failure``: a timeout, a reset, a refused connection) is thrown as the same `FirestoreError`, so
/// retry paths replay too.
///
/// Safe to share between tasks.
public final class ReplayTransport: HTTPTransport {
    /// When to record (VCR's record modes).
    public enum RecordMode: String, Sendable, Hashable, CaseIterable {
        /// Record when there is no cassette yet; else replay strictly, recording nothing.
        case once
        /// Replay only; a request that matches nothing fails.
        case none
        /// Record every request again, replacing the cassette.
        case all
        /// Replay what matches; record what does not, appended to the cassette.
        case newEpisodes = "new-episodes"
    }

    /// Whether matching responses wait for the interactions recorded before them.
    public enum Ordering: Sendable, Hashable {
        /// Each request takes the first unplayed matching interaction at once.
        case perRequest
        /// As ``perRequest``, and a response is held until every interaction recorded before it was played.
        case session
    }

    /// How fast responses come.
    public enum Pace: Sendable, Hashable {
        /// At once.
        case instant
        /// At the recorded moments divided by `speed` (2 is twice as fast; 0, negative or non-finite is
        /// ``instant``; speeds are kept between 0.001 and 1,000,000).
        case recorded(speed: Double)

        /// The speed to divide recorded moments by, or `nil` for instant.
        var speed: Double? {
            guard case .recorded(let speed) = self, speed.isFinite, speed > 0 else { return nil }
            return min(max(speed, 0.001), 1_000_000)
        }
    }

    /// How requests are matched, ordered and timed.
    public struct Options: Sendable {
        /// Which recorded request a request is; ``CassetteMatcher/standard`` by default.
        public var matcher: CassetteMatcher
        /// Whether a request whose matches were all played gets the last one again instead of failing.
        public var allowPlaybackRepeats: Bool
        /// ``Ordering/perRequest`` (default) or ``Ordering/session``.
        public var ordering: Ordering
        /// ``Pace/instant`` (default) or ``Pace/recorded(speed:)``.
        public var pace: Pace
        /// The clock paced replay sleeps on.
        public var clock: any Clock<Duration>
        /// Applied to each request before matching (and, when recording, to the new interactions).
        public var scrubber: SecretScrubber
        /// Headers kept when recording.
        public var recordedRequestHeaders: Set<String>
        /// Response headers kept when recording.
        public var recordedResponseHeaders: Set<String>
        /// How long, in real time (not ``clock``), a replay may wait without progress for something the code under
        /// test never does (request an interaction recorded earlier in session order, make a recorded write a Listen
        /// response shows, send a recorded Listen request, or end a Listen call whose recording is played) before
        /// it fails with `.failedPrecondition` saying what is missing. 10 s by default.
        public var stallTimeout: Duration
        /// How the hint of the error for a request whose matches were all played names ``allowPlaybackRepeats``:
        /// `allowPlaybackRepeats` by default; a command-line tool gives its option (`--allow-playback-repeats`).
        package var allowPlaybackRepeatsName = "allowPlaybackRepeats"

        /// Options with the documented defaults.
        public init(
            matcher: CassetteMatcher = .standard, allowPlaybackRepeats: Bool = false, ordering: Ordering = .perRequest,
            pace: Pace = .instant, clock: any Clock<Duration> = ContinuousClock(), scrubber: SecretScrubber = .standard,
            recordedRequestHeaders: Set<String> = RecordingTransport.Options.standardRequestHeaders,
            recordedResponseHeaders: Set<String> = RecordingTransport.Options.standardResponseHeaders,
            stallTimeout: Duration = .seconds(10)
        ) {
            self.matcher = matcher
            self.allowPlaybackRepeats = allowPlaybackRepeats
            self.ordering = ordering
            self.pace = pace
            self.clock = clock
            self.scrubber = scrubber
            self.recordedRequestHeaders = recordedRequestHeaders
            self.recordedResponseHeaders = recordedResponseHeaders
            self.stallTimeout = stallTimeout
        }
    }

    private struct State {
        var claimed: [Bool]
        var origin: Duration?
        var plays = 0
    }

    private enum Choice {
        case play(Int)
        case repeatLast(Int)
        case record
        case fail(matching: [Int])
    }

    /// The mode asked for.
    public let mode: RecordMode
    /// The options in use.
    public let options: Options
    /// How the cassette is named in error messages (its file path, or `cassette`).
    public let name: String
    private let replayed: [Cassette.Interaction]
    private let keys: [Cassette.Request]
    private let moments: [Duration]
    let recorder: RecordingTransport?
    private let stopwatch: Stopwatch
    private let state: Mutex<State>
    /// Which interactions were requested and played, and the waits of session order.
    let order: ReplaySessionOrder
    /// The recorded Listen calls and which were played.
    let listens: ListenSessionPlayer

    /// Replays `cassette` (mode `.none`): the in-memory test double.
    /// - Parameters:
    ///   - cassette: the interactions to serve.
    ///   - options: matching, order, repeats and pace.
    ///   - name: how to name the cassette in error messages.
    public convenience init(cassette: Cassette, options: Options = Options(), name: String = "cassette") {
        self.init(replaying: cassette, recorder: nil, mode: .none, options: options, name: name)
    }

    /// A transport in any ``RecordMode``, over an in-memory cassette.
    /// - Parameters:
    ///   - cassette: the existing cassette, or `nil` when there is none yet (`.once` then records).
    ///   - mode: when to record.
    ///   - live: the transport that records go through; needed by every mode that may record.
    ///   - path: when recording, the file each new interaction is added to (see ``RecordingTransport``).
    ///   - options: matching, order, repeats, pace and what recording keeps.
    ///   - name: how to name the cassette in error messages.
    /// - Throws: `FirestoreError` `.invalidArgument` when the mode may record and `live` is `nil`.
    public convenience init(
        cassette: Cassette?, mode: RecordMode, live: (any HTTPTransport)?, savingTo path: String? = nil,
        options: Options = Options(), name: String = "cassette"
    ) throws(FirestoreError) {
        let records: Bool
        switch mode {
        case .none: records = false
        case .once: records = cassette == nil
        case .all, .newEpisodes: records = true
        }
        var recorder: RecordingTransport?
        if records {
            guard let live else {
                throw .invalidArgument("\(name): record mode \(mode.rawValue) needs a live transport to record through")
            }
            let base = mode == .newEpisodes ? (cassette ?? Cassette()) : Cassette()
            recorder = RecordingTransport(
                wrapping: live, appendingTo: base, savingTo: path,
                options: RecordingTransport.Options(
                    requestHeaders: options.recordedRequestHeaders, responseHeaders: options.recordedResponseHeaders,
                    scrubber: options.scrubber, clock: options.clock))
        }
        let replaying = (mode == .all || (mode == .once && records)) ? Cassette() : (cassette ?? Cassette())
        self.init(replaying: replaying, recorder: recorder, mode: mode, options: options, name: name)
    }

    /// A transport in any ``RecordMode`` over the cassette file at `path`: a missing file counts as no
    /// cassette; recording modes add each new interaction to the file as it completes.
    /// - Throws: `FirestoreError` `.notFound` for a missing file in mode `.none`, the errors of
    ///   ``Cassette/init(contentsOfFile:)`` for an unreadable or malformed one, `.invalidArgument` when the
    ///   mode may record and `live` is `nil`, or `.failedPrecondition` when the file's folder does not exist (not
    ///   retryable: create the folder).
    public convenience init(
        file path: String, mode: RecordMode, live: (any HTTPTransport)?, options: Options = Options()
    ) throws(FirestoreError) {
        let exists = FileManager.default.fileExists(atPath: path)
        var cassette: Cassette?
        if exists && mode != .all {
            cassette = try Cassette(contentsOfFile: path)
        } else if mode == .none {
            throw FirestoreError(code: .notFound, message: "no cassette at \(path) (record mode none only replays)")
        }
        let records = mode == .all || mode == .newEpisodes || (mode == .once && !exists)
        if records {
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw FirestoreError(
                    code: .failedPrecondition,
                    message: "cannot record to \(path): no folder \(folder) (create it first)")
            }
        }
        try self.init(
            cassette: cassette, mode: mode, live: live, savingTo: records ? path : nil, options: options,
            name: path)
    }

    private init(
        replaying cassette: Cassette, recorder: RecordingTransport?, mode: RecordMode, options: Options,
        name: String
    ) {
        self.mode = mode
        self.options = options
        self.name = name
        self.recorder = recorder
        replayed = cassette.interactions
        holdsRPCCalls = cassette.interactions.contains { RPCExchange.isRPC($0.request) }
        keys = cassette.interactions.map { interaction in
            var key = interaction.request
            key.body = key.body.map(Cassette.canonicalBody)
            return key
        }
        var start = Duration.zero
        moments = cassette.interactions.map { interaction in
            start += Stopwatch.duration(seconds: interaction.elapsed)
            return start + Stopwatch.duration(seconds: interaction.duration)
        }
        stopwatch = Stopwatch(options.clock)
        let order = ReplaySessionOrder(interactions: cassette.interactions, stallTimeout: options.stallTimeout)
        self.order = order
        let describe = Self.describe(cassette.interactions)
        listens = ListenSessionPlayer(
            sessions: cassette.listenSessions, options: options, name: name,
            turns: options.ordering == .session ? ListenSessionPlayer.Turns(order: order, describe: describe) : nil)
        state = Mutex(State(claimed: Array(repeating: false, count: replayed.count)))
    }

    /// Each interaction as `interaction N (METHOD PATH)`, for error messages.
    private static func describe(_ interactions: [Cassette.Interaction]) -> [String] {
        interactions.enumerated().map { index, interaction in
            "interaction \(index) (\(interaction.request.method) \(interaction.request.pathWithoutQuery))"
        }
    }

    /// Whether the cassette holds gRPC calls (`RPCExchange`): an `.automatic` client then replays over gRPC.
    let holdsRPCCalls: Bool

    /// Whether requests that match nothing are recorded through the live transport.
    public var isRecording: Bool { recorder != nil }

    /// In a recording mode, ends the recording before the process exits: see
    /// ``RecordingTransport/finishRecording()`` (open Listen calls recorded as ended by the client, the file written
    /// one last time, nothing after). Replaying only, it does nothing.
    /// - Throws: `FirestoreError` `.dataLoss` when the last write of the file fails.
    public func finishRecording() throws(FirestoreError) {
        try recorder?.finishRecording()
    }

    /// The cassette as it stands: the replayed one, or in a recording mode the base plus what was recorded
    /// (scrubbed).
    public var cassette: Cassette {
        recorder?.cassette ?? Cassette(interactions: replayed, listenSessions: listens.sessions)
    }

    /// The indices of replayed interactions not played yet, in order; empty when a test used the whole
    /// cassette.
    public var unplayedIndices: [Int] { order.unplayedIndices }

    /// How many replayed interactions a request has taken so far (served, or held back in session order).
    var claimedCount: Int {
        state.withLock { state in state.claimed.filter { $0 }.count }
    }

    /// How many responses, HTTP or Listen, are held in session order until the interactions before them are
    /// played, for tests.
    package var heldCount: Int { order.heldCount }

    /// How many responses were served from the cassette, repeats included.
    public var playCount: Int {
        state.withLock { $0.plays }
    }

    /// Answers `request` from the cassette (or records it, see ``RecordMode``).
    /// - Throws: `FirestoreError` `.failedPrecondition` when nothing recorded matches (naming the closest
    ///   recorded request and what differed), every match was played, or, in session order, the response is held
    ///   behind an interaction nobody requests for `Options.stallTimeout`; `.cancelled` when the task is
    ///   cancelled while the response is held back; in a recording mode whatever the live transport throws.
    public func send(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse {
        if let response = try await answer(request) { return response }
        guard let recorder else { throw FirestoreError(code: .internal, message: "\(name): no recorder") }
        return try await recorder.send(request)
    }

    /// The recorded response to `request`, or `nil` when it is to be recorded (a recording mode, and nothing
    /// unplayed matches); errors as ``send(_:)``.
    func answer(_ request: HTTPRequest) async throws(FirestoreError) -> HTTPResponse? {
        if Task.isCancelled { throw Self.cancelled(request) }
        let sent = options.scrubber.scrub(Cassette.Request(request))
        let choice: Choice = state.withLock { state in
            var matching: [Int] = []
            for index in replayed.indices where options.matcher.matches(recorded: keys[index], sent: sent) {
                if !state.claimed[index] {
                    state.claimed[index] = true
                    order.setRequested(index, true)
                    if state.origin == nil, let speed = options.pace.speed {
                        let start = moments[index] - Stopwatch.duration(seconds: replayed[index].duration)
                        state.origin = stopwatch.elapsed - start / speed
                    }
                    return .play(index)
                }
                matching.append(index)
            }
            if let last = matching.last, options.allowPlaybackRepeats {
                state.plays += 1
                return .repeatLast(last)
            }
            return recorder == nil ? .fail(matching: matching) : .record
        }
        switch choice {
        case .record:
            return nil
        case .fail(let matching):
            throw unmatched(sent, playedMatches: matching)
        case .repeatLast(let index):
            return try replayed[index].replayed(to: request)
        case .play(let index):
            do {
                if options.ordering == .session {
                    try await order.waitForTurn(index) { [name, keys] missing in
                        Self.stalled(name, held: index, keys: keys, missing: missing, order: self.order)
                    }
                }
                if let speed = options.pace.speed, let origin = state.withLock({ $0.origin }) {
                    try await stopwatch.sleep(untilElapsed: origin + moments[index] / speed)
                }
            } catch {
                state.withLock { $0.claimed[index] = false }
                order.setRequested(index, false)
                if let error = error as? FirestoreError { throw error }
                throw Self.cancelled(request)
            }
            deliver(index)
            return try replayed[index].replayed(to: request)
        }
    }

    // MARK: - Session order

    private func deliver(_ index: Int) {
        state.withLock { $0.plays += 1 }
        order.delivered(index)
    }

    /// The error of a request held in session order behind interaction `missing`, which nobody requested.
    private static func stalled(
        _ name: String, held index: Int, keys: [Cassette.Request], missing: Int, order: ReplaySessionOrder
    ) -> FirestoreError {
        let unplayed = order.unplayedIndices.filter { $0 < index }
        let list = unplayed.prefix(5).map(String.init).joined(separator: ", ") + (unplayed.count > 5 ? ", ..." : "")
        return FirestoreError(
            code: .failedPrecondition,
            message:
                "\(name): \(keys[index].method) \(keys[index].pathWithoutQuery) (interaction \(index)) is held in "
                + "session order behind interaction \(missing) (\(keys[missing].method) "
                + "\(keys[missing].pathWithoutQuery)), which nothing requested in "
                + "\(Stopwatch.text(order.stallTimeout)) s: the code under test does not make every "
                + "request recorded before this one (unplayed before it: \(list)); replay the whole session, or "
                + "use ordering .perRequest to serve each request without waiting")
    }

    // MARK: - Errors

    private static func cancelled(_ request: HTTPRequest) -> FirestoreError {
        FirestoreError(
            code: .cancelled,
            message: "cancelled while replaying \(request.method) "
                + Cassette.Request.pathAndQuery(of: request.url))
    }

    /// The error for a request that no unplayed interaction matches.
    private func unmatched(_ sent: Cassette.Request, playedMatches: [Int]) -> FirestoreError {
        let what = "\(sent.method) \(sent.path)"
        if !playedMatches.isEmpty {
            let list = playedMatches.map(String.init).joined(separator: ", ")
            return FirestoreError(
                code: .failedPrecondition,
                message:
                    "\(name): no unplayed interaction for \(what): interaction\(playedMatches.count == 1 ? "" : "s")"
                    + " \(list) matched and \(playedMatches.count == 1 ? "was" : "were all") played"
                    + " (\(options.allowPlaybackRepeatsName) repeats the last one)")
        }
        var message = "\(name): no recorded interaction matches \(what)"
        if let body = sent.body, !body.isEmpty {
            let text = String(decoding: body.prefix(200), as: UTF8.self)
            message += " with body \(text)\(body.count > 200 ? "..." : "")"
        }
        guard let closest = closestInteraction(to: sent) else {
            return FirestoreError(code: .failedPrecondition, message: message + " (the cassette is empty)")
        }
        let recorded = keys[closest.index]
        message +=
            "; closest is interaction \(closest.index), \(recorded.method) \(recorded.path): "
            + closest.differences.joined(separator: "; ")
        return FirestoreError(code: .failedPrecondition, message: message)
    }

    /// The recorded request agreeing on the most matcher components (the path counting half a component
    /// more, the first one on a tie), with its differences.
    private func closestInteraction(to sent: Cassette.Request) -> (index: Int, differences: [String])? {
        var best: (index: Int, differences: [String], score: Double)?
        let total = Double(options.matcher.components.count)
        for index in keys.indices {
            let differences = options.matcher.differences(recorded: keys[index], sent: sent)
            var score = total - Double(differences.count)
            if CassetteMatcher.Component.path.describeDifference(keys[index], sent) == nil { score += 0.5 }
            if best == nil || score > (best?.score ?? 0) { best = (index, differences, score) }
        }
        return best.map { ($0.index, $0.differences) }
    }
}
